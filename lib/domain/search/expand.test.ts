import { describe, expect, it } from 'vitest';
import { clientSearchDocument, dataBagItemSearchDocument, deepMerge, flattenForIndex, nodeSearchDocument, valueAt, type Json } from './expand';
import { matchesRows } from './match';
import { parseSearchQuery } from './parse';

const node = {
  name: 'web1.example.com',
  chef_environment: '_default',
  json_class: 'Chef::Node',
  chef_type: 'node',
  run_list: ['recipe[apache2]', 'recipe[foo::bar]', 'role[webserver]'],
  policy_name: 'web',
  policy_group: 'production',
  default: { app: { tier: 'default-tier', port: 80 }, only_default: 'd' },
  normal: { app: { tier: 'web' }, tags: ['frontend', 'Blue'] },
  override: { app: { port: 8080 } },
  automatic: {
    platform: 'ubuntu',
    platform_version: '22.04',
    kernel: { release: '5.15.0-91-generic', machine: 'x86_64' },
    recipes: ['apache2', 'apache2::mod_ssl'],
    roles: ['webserver'],
    memory: { total: '16384kB' },
    cpu: { model_name: 'Intel Xeon Gold 6148' },
    virtualization: { enabled: true, guest: null },
    network: { interfaces: { eth0: { mtu: 1500 } } },
    uptime_seconds: 12345,
  },
};

const rows = flattenForIndex(nodeSearchDocument(node));
const find = (q: string, r = rows) => matchesRows(parseSearchQuery(q), r);

describe('nodeSearchDocument: what Chef indexes for a node', () => {
  const doc = nodeSearchDocument(node);
  it('deep-merges default < normal < override < automatic', () => {
    expect(valueAt(doc, ['app', 'tier'])).toBe('web');
    expect(valueAt(doc, ['app', 'port'])).toBe(8080);
    expect(valueAt(doc, ['only_default'])).toBe('d');
    expect(valueAt(doc, ['platform'])).toBe('ubuntu');
  });
  it('adds the top-level fields over the attributes', () => {
    expect(doc).toMatchObject({ name: 'web1.example.com', chef_type: 'node', chef_environment: '_default', policy_name: 'web', policy_group: 'production', recipe: ['apache2', 'foo::bar'], role: ['webserver'] });
    expect(doc.run_list).toStrictEqual(node.run_list);
    const clash = nodeSearchDocument({ name: 'n', automatic: { name: 'ohai-name', chef_environment: 'x' } });
    expect(clash.name).toBe('n');
    expect(clash.chef_environment).toBe('_default');
  });
  it('leaves policy fields out when the node has none', () => {
    const d = nodeSearchDocument({ name: 'n' });
    expect('policy_name' in d).toBe(false);
    expect('policy_group' in d).toBe(false);
  });
  it('replaces arrays and scalars rather than merging them (chef_deep_merge)', () => {
    expect(deepMerge({ a: [1, 2], b: { c: 1 } }, { a: [3], b: { d: 2 } })).toStrictEqual({ a: [3], b: { c: 1, d: 2 } });
    expect(deepMerge({ a: { b: 1 } }, { a: 'x' })).toStrictEqual({ a: 'x' });
  });
});

describe("flattenForIndex + matchesRows: Chef's documented queries", () => {
  it.each([
    // docs.chef.io "Search": full paths joined with _, and the last key alone.
    ['kernel_release:5.15.0-91-generic', true],
    ['release:5.15.0-91-generic', true],
    ['kernel_machine:x86_64', true],
    ['platform:ubuntu', true],
    ['platform:UBUNTU', true],
    ['platform:debian', false],
    ['policy_group:production AND platform:ubuntu', true],
    ['policy_name:web AND policy_group:staging', false],
    ['name:web1*', true],
    ['name:*.example.com', true],
    ['name:web?.example.com', true],
    ['name:web', false],
    ['tier:web', true],
    ['app_tier:web', true],
    ['app_tier:default-tier', false],
    ['port:8080', true],
    ['port:80', false],
    ['tags:frontend', true],
    ['tags:blue', true],
    ['recipe:apache2', true],
    ['recipe:foo\\:\\:bar', true],
    ['role:webserver', true],
    ['recipes:apache2\\:\\:mod_ssl', true],
    ['roles:webserver', true],
    ['run_list:recipe\\[apache2\\]', true],
    ['run_list:role\\[webserver\\]', true],
    ['run_list:recipe\\[nginx\\]', false],
    ['chef_environment:_default', true],
    ['chef_type:node', true],
    // Object keys are values of their parent path.
    ['network_interfaces:eth0', true],
    ['interfaces:eth0', true],
    ['network_interfaces_eth0_mtu:1500', true],
    // Booleans and null as text.
    ['virtualization_enabled:true', true],
    ['virtualization_guest:*', true],
    // Multi-word values: the first word as a term, the whole as a phrase.
    ['cpu_model_name:intel', true],
    ['cpu_model_name:xeon', false],
    ['model_name:"Intel Xeon Gold 6148"', true],
    ['model_name:"intel xeon"', true],
    ['model_name:"xeon gold"', false],
    // Ranges compare as text (Lucene terms).
    ['uptime_seconds:[10000 TO 20000]', true],
    ['uptime_seconds:{12345 TO 20000]', false],
    ['uptime_seconds:[12345 TO 12345]', true],
    ['platform_version:[22.00 TO 22.10]', true],
    ['platform:[* TO v]', true],
    // Field existence, negation, any field.
    ['kernel_release:*', true],
    ['nonexistent:*', false],
    ['NOT nonexistent:*', true],
    ['-platform:ubuntu', false],
    ['*:ubuntu', true],
    ['kernel_*:x86_64', true],
    ['*:*', true],
  ])('%s → %s', (q, want) => {
    expect(find(q)).toBe(want);
  });
});

describe('clients and data bag items', () => {
  it('indexes a client by name, validator and admin', () => {
    const r = flattenForIndex(clientSearchDocument({ name: 'web1', validator: false }));
    expect(find('name:web1', r)).toBe(true);
    expect(find('validator:false', r)).toBe(true);
    expect(find('admin:false', r)).toBe(true);
    expect(find('chef_type:client', r)).toBe(true);
  });
  it('indexes a data bag item by its keys, nested keys by path and leaf (CHEF-3975)', () => {
    const item = { id: 'alice', ssh: { public_key: '---RSA Public Key--- Alice' }, groups: ['admin', 'ops'] };
    const r = flattenForIndex(dataBagItemSearchDocument('users', item));
    expect(find('id:alice', r)).toBe(true);
    expect(find('ssh_public_key:*', r)).toBe(true);
    expect(find('public_key:*', r)).toBe(true);
    expect(find('raw_data_ssh_public_key:*', r)).toBe(false);
    expect(find('groups:ops', r)).toBe(true);
    expect(find('data_bag:users', r)).toBe(true);
    expect(find('chef_type:data_bag_item', r)).toBe(true);
  });
  it('pedant tokenizer cases: foo-bar is one token, foo/bar matches foo\\/*', () => {
    const foo = flattenForIndex(dataBagItemSearchDocument('x', { id: 'foo', path: 'foo/bar' }));
    const fooBar = flattenForIndex(dataBagItemSearchDocument('x', { id: 'foo-bar' }));
    expect(find('id:foo-bar', foo)).toBe(false);
    expect(find('id:foo-bar', fooBar)).toBe(true);
    expect(find('id:foo* AND NOT bar', foo)).toBe(true);
    expect(find('id:foo* AND NOT bar', fooBar)).toBe(true);
    expect(find('path:foo\\/*', foo)).toBe(true);
  });
});

describe('valueAt (partial search paths)', () => {
  const doc = nodeSearchDocument(node) as Json;
  it.each([
    [['app', 'tier'], 'web'],
    [['kernel', 'release'], '5.15.0-91-generic'],
    [['name'], 'web1.example.com'],
    [['foo', 'bar', 'baz'], null],
    [['platform', 'x'], null],
  ] as [string[], Json][])('%j', (path, want) => {
    expect(valueAt(doc, path)).toStrictEqual(want);
  });
});

describe('flattenForIndex: bounds', () => {
  it('cuts long values and keeps rows unique', () => {
    const r = flattenForIndex({ a: 'x'.repeat(1000), b: ['same', 'same'] });
    expect(r.find((x) => x.path === 'a')!.value).toHaveLength(255);
    expect(r.filter((x) => x.path === 'b')).toHaveLength(1);
  });
});
