/**
 * The objects and queries of the search suite (test/chef/search.chef.test.ts):
 * nodes, clients and data bag items loaded through knife into the console and
 * into chef-zero, and 100+ queries (hand-written, plus generated from the
 * query grammar with a seeded generator) asked of both.
 */
import { rng } from '../differential/generate';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const PLATFORMS = [
  { platform: 'ubuntu', family: 'debian', version: '22.04', kernel: '5.15.0-91-generic' },
  { platform: 'ubuntu', family: 'debian', version: '20.04', kernel: '5.4.0-169-generic' },
  { platform: 'debian', family: 'debian', version: '12', kernel: '6.1.0-17-amd64' },
  { platform: 'centos', family: 'rhel', version: '8.5', kernel: '4.18.0-348.el8.x86_64' },
];
const TIERS = ['web', 'db', 'cache', 'web'];
const GROUPS = ['production', 'staging', 'dev'];

/** 12 nodes: policy mode and role/run-list mode, every attribute level, arrays, numbers, multi-word and special-character values. */
export function searchNodes(): Record<string, Json>[] {
  const nodes: Record<string, Json>[] = [];
  for (let i = 1; i <= 12; i++) {
    const p = PLATFORMS[i % PLATFORMS.length];
    const tier = TIERS[i % TIERS.length];
    const name = `s25-${tier}${i}`;
    const policyMode = i % 3 !== 0;
    nodes.push({
      name,
      chef_type: 'node',
      json_class: 'Chef::Node',
      chef_environment: policyMode ? '_default' : i % 2 ? 'qa' : '_default',
      ...(policyMode ? { policy_name: i % 2 ? 'webapp' : 'database', policy_group: GROUPS[Math.floor(i / 3) % GROUPS.length] } : {}),
      run_list: policyMode ? [] : [`recipe[base::default]`, i % 2 ? 'role[frontend]' : 'role[backend]', `recipe[${tier}::server]`],
      default: { app: { port: 8000 + i, tier: 'default-tier' }, ntp: { servers: ['0.pool.ntp.org', '1.pool.ntp.org'] } },
      normal: { app: { tier, owner: i % 2 ? 'team-a' : 'team_b' }, tags: i % 4 === 0 ? ['canary', 'monitored'] : ['monitored'], description: i % 5 === 0 ? 'Primary web server' : `node number ${i}` },
      override: { app: { port: 9000 + i } },
      automatic: {
        platform: p.platform,
        platform_family: p.family,
        platform_version: p.version,
        fqdn: `${name}.example.com`,
        hostname: name,
        ipaddress: `10.0.${i % 3}.${10 + i}`,
        kernel: { name: 'Linux', release: p.kernel, machine: 'x86_64' },
        cpu: { total: 2 ** (i % 4), real: 1 },
        memory: { total: `${1024 * (i % 5 + 1)}kB` },
        uptime_seconds: 1000 * i,
        recipes: policyMode ? ['base::default', `${tier}::server`] : [],
        roles: policyMode ? [] : [i % 2 ? 'frontend' : 'backend'],
        path: i % 2 ? '/usr/local/bin' : '/opt/app:bin',
      },
    });
  }
  return nodes;
}

/** 10 clients (API v1 creates: name and validator). */
export function searchClients(): { name: string; validator: boolean }[] {
  return Array.from({ length: 10 }, (_, i) => ({ name: i < 2 ? `s25-validator${i}` : `s25-client${i}`, validator: i < 2 }));
}

/** The data bag and its 10 items. */
export const SEARCH_BAG = 's25apps';
export function searchBagItems(): Record<string, Json>[] {
  return Array.from({ length: 10 }, (_, i) => ({
    id: `app${i}`,
    port: 3000 + i * 10,
    owner: i % 2 ? 'alice' : 'bob',
    env: GROUPS[i % 3],
    tags: i % 3 ? ['public', 'http'] : ['internal'],
    settings: { replicas: i % 4, debug: i % 2 === 0, 'log-level': i % 2 ? 'info' : 'debug' },
    ...(i === 7 ? { note: 'Handle with care' } : {}),
  }));
}

export interface SearchCase {
  index: string;
  q: string;
  /** Partial search: the body of POST /search/INDEX. */
  filter?: Record<string, string[]>;
}

/** Hand-written cases: every construct of the query language on all three kinds of index. */
export function handWrittenCases(): SearchCase[] {
  const node = (q: string): SearchCase => ({ index: 'node', q });
  const client = (q: string): SearchCase => ({ index: 'client', q });
  const bag = (q: string): SearchCase => ({ index: SEARCH_BAG, q });
  return [
    node('*:*'),
    node('name:s25-web1'),
    node('name:s25-web*'),
    node('name:s25-?b*'),
    node('name:*1'),
    node('name:s25-web1 OR name:s25-db2'),
    node('policy_group:production AND platform:ubuntu'),
    node('policy_group:production AND NOT platform:ubuntu'),
    node('policy_group:production -platform:ubuntu'),
    node('+policy_group:staging +policy_name:webapp'),
    // `&&` is left out: chef-zero answers it with a 500, which knife retries for a minute and a half (listed in the docs).
    node('policy_group:dev || platform:centos'),
    node('NOT policy_group:production'),
    node('!platform:ubuntu'),
    node('tier:web'),
    node('app_tier:web'),
    node('app_tier:(web OR db)'),
    node('(tier:web OR tier:db) AND platform_family:debian'),
    node('platform_version:22.04'),
    node('platform_version:22*'),
    node('kernel_release:5.15*'),
    node('release:6.1*'),
    node('kernel_machine:x86_64'),
    node('app_port:9001'),
    node('port:8001'),
    node('port:9003'),
    node('app_owner:team-a'),
    node('owner:team_b'),
    node('owner:team\\-a'),
    node('tags:canary'),
    node('tags:monitored AND NOT tags:canary'),
    node('recipes:base\\:\\:default'),
    node('recipes:web\\:\\:*'),
    node('roles:frontend'),
    node('roles:*'),
    node('role:backend'),
    node('recipe:base\\:\\:default'),
    node('run_list:role\\[frontend\\]'),
    node('chef_environment:qa'),
    node('chef_environment:_default AND policy_name:database'),
    node('ipaddress:10.0.1.*'),
    node('fqdn:s25-db2.example.com'),
    node('fqdn:*.example.com'),
    node('description:primary'),
    node('description:"primary web server"'),
    node('description:"node number 3"'),
    node('description:node'),
    node('uptime_seconds:[1000 TO 5000]'),
    node('uptime_seconds:{1000 TO 5000}'),
    node('uptime_seconds:[5000 TO *]'),
    node('uptime_seconds:[* TO 3000]'),
    node('platform:[centos TO debian]'),
    node('platform:{centos TO ubuntu}'),
    node('cpu_total:8'),
    node('total:4'),
    node('memory_total:2048kB'),
    node('path:\\/usr\\/local\\/bin'),
    node('path:"/usr/local/bin"'),
    node('path:\\/opt\\/app\\:bin'),
    node('ntp_servers:0.pool.ntp.org'),
    node('servers:1.pool*'),
    node('policy_name:*'),
    node('NOT policy_name:*'),
    node('nosuchfield:anything'),
    node('platform:nosuchvalue'),
    node('PLATFORM:UBUNTU'),
    node('platform:Ubuntu'),
    node('name:S25-WEB1'),
    client('*:*'),
    client('name:s25-client*'),
    client('validator:true'),
    client('validator:false AND name:s25-*'),
    client('name:s25-client3 OR name:s25-validator0'),
    client('NOT validator:true AND name:s25*'),
    client('clientname:s25-client5'),
    bag('*:*'),
    bag('id:app1'),
    bag('id:app*'),
    bag('owner:alice'),
    bag('owner:alice AND env:production'),
    bag('port:[3000 TO 3040]'),
    bag('port:{3000 TO 3040}'),
    bag('tags:internal'),
    bag('tags:public AND NOT owner:bob'),
    bag('settings_replicas:2'),
    bag('replicas:[1 TO 2]'),
    bag('settings_debug:true'),
    bag('debug:false'),
    bag('log-level:info'),
    bag('settings_log-level:debug'),
    bag('note:"handle with care"'),
    bag('note:handle'),
    bag('data_bag:s25apps AND id:app3'),
    bag('chef_type:data_bag_item'),
    // Partial search (POST): the values at the paths asked for.
    { index: 'node', q: 'policy_group:production', filter: { name: ['name'], platform: ['platform'], tier: ['app', 'tier'], port: ['app', 'port'], none: ['no', 'such'] } },
    { index: 'node', q: 'tags:canary', filter: { kernel: ['kernel', 'release'], tags: ['tags'], run_list: ['run_list'] } },
    { index: 'node', q: 'name:s25-*', filter: { fqdn: ['fqdn'], env: ['chef_environment'], pg: ['policy_group'], pn: ['policy_name'] } },
    { index: 'client', q: 'name:s25-*', filter: { name: ['name'], validator: ['validator'] } },
    { index: SEARCH_BAG, q: 'owner:bob', filter: { id: ['id'], port: ['port'], level: ['settings', 'log-level'], missing: ['settings', 'nope'] } },
  ];
}

/** Field → values seen in the fixtures (plus misses), for the generator. */
const NODE_VOCAB: Record<string, string[]> = {
  name: ['s25-web1', 's25-db2', 's25-cache3', 's25-web4', 's25-nothere'],
  platform: ['ubuntu', 'debian', 'centos', 'windows'],
  platform_family: ['debian', 'rhel'],
  platform_version: ['22.04', '20.04', '12', '8.5'],
  policy_group: ['production', 'staging', 'dev'],
  policy_name: ['webapp', 'database'],
  tier: ['web', 'db', 'cache'],
  app_tier: ['web', 'db', 'cache', 'default-tier'],
  owner: ['team-a', 'team_b'],
  tags: ['canary', 'monitored'],
  roles: ['frontend', 'backend'],
  chef_environment: ['_default', 'qa'],
  cpu_total: ['1', '2', '4', '8'],
  uptime_seconds: ['1000', '2000', '5000', '12000'],
  kernel_name: ['linux'],
  hostname: ['s25-web5', 's25-db6'],
};

/**
 * `count` queries generated from the grammar: terms (escaped), wildcards
 * (`*`, `?`), phrases, AND / OR / AND NOT with parentheses, nested up to three
 * levels, over the node fixtures' fields. Ranges and the `-` / `+` / `&&`
 * operators are left to the hand-written cases: chef-zero answers them
 * otherwise than Chef Infra Server (listed in the test and in
 * docs/chef-compatibility.md), so a generated query using them would compare
 * nothing.
 */
export function generatedCases(seed: number, count: number): SearchCase[] {
  // A seeded generator (mulberry32), so that a failure can be replayed.
  const { next: r, pick } = rng(seed);
  const fields = Object.keys(NODE_VOCAB);
  const leaf = (): string => {
    const f = pick(fields);
    const v = pick(NODE_VOCAB[f]);
    const k = r();
    if (k < 0.45) return `${f}:${v.replace(/[-+!(){}[\]^"~*?:\\/]/g, '\\$&')}`;
    if (k < 0.6) return `${f}:${v.slice(0, Math.max(1, Math.floor(v.length / 2)))}*`;
    if (k < 0.68) return `${f}:${v.length > 2 ? v[0] + '?' + v.slice(2).replace(/[-+!(){}[\]^"~*?:\\/]/g, '\\$&') : v}`;
    if (k < 0.9) return `${f}:"${v}"`;
    // Not `roles:*`: chef-zero matches the empty array of policy-mode nodes (a listed difference).
    return f === 'roles' ? `${f}:frontend` : `${f}:*`;
  };
  // Every compound operand is parenthesised and NOT only follows AND: Lucene's classic parser (Chef Infra
  // Server) has no operator precedence and reads `NOT a OR b` as `b AND NOT a`, where chef-zero evaluates
  // plain boolean logic; unambiguous queries mean the same on both.
  const expr = (depth: number): string => {
    const k = r();
    if (depth >= 3 || k < 0.35) return leaf();
    if (k < 0.6) return `(${expr(depth + 1)} AND ${expr(depth + 1)})`;
    if (k < 0.85) return `(${expr(depth + 1)} OR ${expr(depth + 1)})`;
    return `(${expr(depth + 1)} AND NOT ${expr(depth + 1)})`;
  };
  const out: SearchCase[] = [];
  const seen = new Set<string>();
  while (out.length < count) {
    const q = expr(0);
    if (seen.has(q)) continue;
    seen.add(q);
    out.push({ index: 'node', q });
  }
  return out;
}
