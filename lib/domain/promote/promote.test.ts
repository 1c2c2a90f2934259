import { describe, expect, it } from 'vitest';
import { computeRevisionId, promoteCookbookLock, satisfies, type PolicyLock } from '@/lib/domain';

describe('satisfies (Chef version constraints)', () => {
  it.each([
    ['1.2.3', '>= 1.0', true],
    ['1.2.3', '~> 1.2', true],
    ['2.0.0', '~> 1.2', false],
    ['1.2.9', '~> 1.2.3', true],
    ['1.3.0', '~> 1.2.3', false],
    ['11.10.0', '~> 11.5', true],
    ['12.0.0', '~> 11.5', false],
    ['1.0.0', '= 1.0', true],
    ['1.0.0', '1.0.0', true],
    ['1.0.1', '1.0.0', false],
    ['0.9.9', '< 1.0', true],
    ['1.0.0', '> 1.0', false],
    ['1.0.0', '!= 1.0.0', false],
    ['1.5.0', '>= 1.0, < 2.0', true],
    ['2.5.0', '>= 1.0, < 2.0', false],
    ['1.0.0', 'banana', false],
  ])('%s meets %s: %s', (v, c, ok) => expect(satisfies(v, c)).toBe(ok));
});

const target: PolicyLock = {
  name: 'web',
  revision_id: 'target-1',
  run_list: ['recipe[app::default]'],
  cookbook_locks: {
    app: { version: '1.4.0', identifier: 'app140' },
    nginx: { version: '11.5.0', identifier: 'ngx115', source_options: { version: '11.5.0' } },
    apt: { version: '7.4.0', identifier: 'apt740' },
  },
  default_attributes: { a: 1 },
  solution_dependencies: {
    Policyfile: [
      ['app', '>= 0.0.0'],
      ['nginx', '>= 0.0.0'],
    ],
    dependencies: { 'app (1.4.0)': [['nginx', '~> 11.5']], 'nginx (11.5.0)': [['apt', '>= 7.0']], 'apt (7.4.0)': [] },
  },
};

const source = (over: Partial<PolicyLock['cookbook_locks']>, deps: Record<string, [string, string][]> = {}): PolicyLock => ({
  ...target,
  revision_id: 'source-1',
  cookbook_locks: { ...target.cookbook_locks, ...over } as PolicyLock['cookbook_locks'],
  solution_dependencies: { Policyfile: target.solution_dependencies!.Policyfile, dependencies: { ...target.solution_dependencies!.dependencies, ...deps } },
});

describe('promoteCookbookLock', () => {
  it('accepts a version bump that every constraint allows, with a fresh revision id', () => {
    const src = source({ nginx: { version: '11.6.2', identifier: 'ngx1162' } }, { 'nginx (11.6.2)': [['apt', '>= 7.0']] });
    const r = promoteCookbookLock(target, src, 'nginx');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.noop).toBe(false);
    expect(r.lock.cookbook_locks.nginx).toEqual({ version: '11.6.2', identifier: 'ngx1162' });
    expect(r.lock.cookbook_locks.app).toEqual(target.cookbook_locks.app);
    expect(r.lock.solution_dependencies!.dependencies).toHaveProperty(['nginx (11.6.2)']);
    expect(r.lock.solution_dependencies!.dependencies).not.toHaveProperty(['nginx (11.5.0)']);
    expect(r.lock.revision_id).toBe(computeRevisionId(r.lock));
    expect(r.lock.revision_id).not.toBe(target.revision_id);
    expect(target.cookbook_locks.nginx.version).toBe('11.5.0');
  });

  it('refuses a bump another cookbook forbids, naming the constraint', () => {
    const src = source({ nginx: { version: '12.0.1', identifier: 'ngx1201' } }, { 'nginx (12.0.1)': [['apt', '>= 7.0']] });
    const r = promoteCookbookLock(target, src, 'nginx');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.unmet).toEqual([
      { requiredBy: 'app (1.4.0)', cookbook: 'nginx', constraint: '~> 11.5', found: '12.0.1', message: 'app (1.4.0) needs nginx ~> 11.5, but the lock would have nginx 12.0.1' },
    ]);
  });

  it("refuses when the promoted cookbook's own dependencies are not met by the target", () => {
    const src = source({ nginx: { version: '11.7.0', identifier: 'ngx117' } }, { 'nginx (11.7.0)': [['apt', '>= 7.5'], ['openssl', '>= 1.0']] });
    const r = promoteCookbookLock(target, src, 'nginx');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.unmet.map((u) => [u.cookbook, u.constraint, u.found])).toEqual([
      ['apt', '>= 7.5', '7.4.0'],
      ['openssl', '>= 1.0', null],
    ]);
  });

  it('adds a cookbook the target does not have', () => {
    const src = source({ ntp: { version: '3.7.0', identifier: 'ntp370' } }, { 'ntp (3.7.0)': [] });
    src.solution_dependencies!.Policyfile = [...src.solution_dependencies!.Policyfile!, ['ntp', '>= 3.0']];
    const r = promoteCookbookLock(target, src, 'ntp');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.before).toBeNull();
    expect(r.lock.cookbook_locks.ntp.version).toBe('3.7.0');
    expect(r.lock.solution_dependencies!.Policyfile).toContainEqual(['ntp', '>= 3.0']);
  });

  it('reports an identical cookbook as a no-op', () => {
    const r = promoteCookbookLock(target, source({}), 'apt');
    expect(r.ok && r.noop).toBe(true);
    if (r.ok) expect(r.lock).toBe(target);
  });

  it('refuses a cookbook the source does not have', () => {
    const r = promoteCookbookLock(target, source({}), 'mysql');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(/not in the source lock/);
  });
});
