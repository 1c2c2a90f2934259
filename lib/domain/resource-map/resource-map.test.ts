import { describe, expect, it } from 'vitest';
import { fixtureJson } from '@/test/fixtures';
import { resolveResourceMap, type ResolveResourceMapInput } from '@/lib/domain';

type Case = { id: string; input: ResolveResourceMapInput; expect: { resolved: Record<string, string | null>; ranked: Record<string, string[]>; warnings: { key: string; className: string; kind: string }[]; rejected: { key: string; className: string; reason: string }[]; errors: { key: string; className: string }[] } };
const cases = fixtureJson<{ cases: Case[] }>('resource-map-cases.json').cases;

describe('resolveResourceMap: fixture cases', () => {
  it.each(cases.map((c) => [c.id, c] as const))('%s', (_id, c) => {
    const r = resolveResourceMap(c.input);
    expect(r.resolved).toEqual(c.expect.resolved);
    expect(r.ranked).toEqual(c.expect.ranked);
    expect(r.warnings.map(({ key, className, kind }) => ({ key, className, kind }))).toEqual(c.expect.warnings);
    expect(r.rejected.map(({ key, className, reason }) => ({ key, className, reason }))).toEqual(c.expect.rejected);
    expect(r.errors.map(({ key, className }) => ({ key, className }))).toEqual(c.expect.errors.map(({ key, className }) => ({ key, className })));
  });
});

const node = { platform: 'ubuntu', platform_family: 'debian', platform_version: '22.04', os: 'linux' };

describe('resolveResourceMap: rules', () => {
  it('chef15 refuses the removed override options as errors', () => {
    const r = resolveResourceMap({
      mode: 'chef15',
      chefVersion: '18.0.0',
      node,
      registrations: [
        { key: 'package', className: 'Core', source: 'core' },
        { key: 'package', className: 'Mine', source: 'cookbook', coreOverride: true },
      ],
    });
    expect(r.errors).toEqual([expect.objectContaining({ key: 'package', className: 'Mine' })]);
    expect(r.resolved.package).toBe('Core');
  });

  it('chef15: a core registration passing allow_cookbook_override is an ArgumentError, not registered, not a preview', () => {
    const r = resolveResourceMap({
      mode: 'chef15',
      chefVersion: '18.4.64',
      node,
      registrations: [
        { key: 'pkg', className: 'CorePkg', source: 'core', allowCookbookOverride: true },
        { key: 'pkg', className: 'Mine', source: 'cookbook' },
      ],
    });
    // Chef 18.4.64, `provides :pkg, allow_cookbook_override: true`: "ArgumentError: unknown keyword: :allow_cookbook_override".
    expect(r.errors).toEqual([expect.objectContaining({ key: 'pkg', className: 'CorePkg', reason: expect.stringContaining('ArgumentError: unknown keyword: :allow_cookbook_override') })]);
    expect(r.ranked.pkg).toEqual(['Mine']);
    expect(r.explanations.pkg.every((e) => !e.preview)).toBe(true);
    expect(r.warnings).toEqual([]);
    const rfc = resolveResourceMap({ mode: 'rfc', chefVersion: '14.10.0', node, registrations: [{ key: 'pkg', className: 'CorePkg', source: 'core', allowCookbookOverride: true }] });
    expect(rfc.explanations.pkg[0].preview).toBe(true);
  });

  it('allow_cookbook_override as a version requirement depends on the Chef version', () => {
    const regs = [
      { key: 'foo', className: 'Core', source: 'core' as const, allowCookbookOverride: '< 15' },
      { key: 'foo', className: 'Mine', source: 'cookbook' as const },
    ];
    expect(resolveResourceMap({ mode: 'rfc', chefVersion: '14.10.0', node, registrations: regs }).resolved.foo).toBe('Mine');
    expect(resolveResourceMap({ mode: 'rfc', chefVersion: '15.0.0', node, registrations: regs }).rejected).toHaveLength(1);
  });

  it('a cookbook overriding another cookbook never warns; core still ranking higher still warns', () => {
    const r = resolveResourceMap({
      mode: 'chef15',
      chefVersion: '18.0.0',
      node,
      registrations: [
        { key: 'svc', className: 'CoreSvc', source: 'core', filters: { os: 'linux', platform_family: 'debian' } },
        { key: 'svc', className: 'A', source: 'cookbook', filters: { os: 'windows' } },
        { key: 'x', className: 'B1', source: 'cookbook' },
        { key: 'x', className: 'B2', source: 'cookbook' },
      ],
    });
    expect(r.warnings.map((w) => w.className)).toEqual(['A']);
    expect(r.resolved).toEqual({ svc: 'CoreSvc', x: 'B2' });
    expect(r.explanations.svc[1].reason).toMatch(/platform_family/);
  });

  it('skips registrations whose chef_version the selected Chef does not meet', () => {
    const r = resolveResourceMap({ mode: 'chef15', chefVersion: '16.0.0', node, registrations: [{ key: 'y', className: 'New', source: 'core', chefVersion: '>= 17' }] });
    expect(r.ranked).toEqual({});
    expect(r.rejected).toEqual([{ key: 'y', className: 'New', reason: 'chef_version' }]);
  });
});

describe('resourceTakeovers', () => {
  it('warns when an incoming cookbook provides a core name, with each mode', async () => {
    const { diffLocks, resourceTakeovers } = await import('@/lib/domain');
    const from = { name: 'p', revision_id: 'a', run_list: [], cookbook_locks: { app: { version: '1.0.0', identifier: 'x' } } };
    const to = { ...from, revision_id: 'b', cookbook_locks: { app: { version: '1.1.0', identifier: 'y', provides: ['package', 'app_site'] } } };
    const core = [{ key: 'package', className: 'Chef::Resource::AptPackage', source: 'core' as const }];
    expect(resourceTakeovers(diffLocks(from, to), to, core, '18.0.0')).toEqual([
      { cookbook: 'app', resource: 'package', core: ['Chef::Resource::AptPackage'], modes: { rfc: 'refused', chef14: 'mapped with a deprecation warning', chef15: 'mapped with a warning' } },
    ]);
  });
});
