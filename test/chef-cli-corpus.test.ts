/**
 * The recorded corpus (test/fixtures/chef-cli-corpus/): cases that once failed, with chef-cli 5.6.24's
 * real outcomes (lock texts or errors), checked without the toolchain. Each file holds the case (its
 * Policyfiles and cookbooks) and what `chef install` produced; record-corpus.ts re-records them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalJson, computeRevisionId, parseLossless, promoteCookbookLock, revisionIdText, serializeJson, type PolicyLock } from '@/lib/domain';
import { checkCase, parentFromSpec, includesFromChef } from '@/test/differential/compare';
import type { ChefOutcomes, DiffCase } from '@/test/differential/model';

const DIR = path.resolve(import.meta.dirname, 'fixtures/chef-cli-corpus');
type Entry = { defect: string; recorded_with: string; case: DiffCase; chef: ChefOutcomes };
const corpus = fs
  .readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => parseLossless(fs.readFileSync(path.join(DIR, f), 'utf8')) as Entry);
const byId = (id: string) => corpus.find((e) => e.case.id === id)!;
const subjectOf = (e: Entry) => e.case.policies[e.case.policies.length - 1];
const mergeOf = (e: Entry) => checkCase(e.case, e.chef).at(-1)!.merge!;
const chefLock = (e: Entry, dir = subjectOf(e).dir) => e.chef[dir].lock!;

describe('chef-cli corpus: the console computes what chef-cli 5.6.24 recorded', () => {
  it('has the recorded cases', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(15);
    for (const e of corpus) expect(e.recorded_with).toContain('5.6.24');
  });

  it.each(corpus.map((e) => [e.case.id, e] as const))('%s', (_id, e) => {
    const checks = checkCase(e.case, e.chef);
    expect(checks.flatMap((c) => c.problems.map((p) => `${c.policy}: ${p}`))).toEqual([]);
    // Refusal for refusal: every policy chef-cli could merge is judged the same way by the console.
    for (const c of checks) if (c.consoleOk !== null) expect(c.consoleOk, `${c.policy} (${e.defect})`).toBe(c.chefOk);
  });
});

describe('chef-cli corpus: each defect of issue 13, against chef-cli’s real output', () => {
  it('%.15g ties round half to even', () => {
    const e = byId('g15-ties');
    const text = chefLock(e);
    expect(revisionIdText(parseLossless(text) as PolicyLock)).toContain('"v":100000000000000,');
    expect(revisionIdText(parseLossless(text) as PolicyLock)).toContain('"x":2.38418579101562e-07');
    expect(computeRevisionId(text)).toBe((parseLossless(text) as PolicyLock).revision_id);
  });

  it('named run lists "10", "b", "1", "2" are hashed in document order', () => {
    const e = byId('named-run-lists-integer-keys');
    const text = chefLock(e);
    const lines = revisionIdText(parseLossless(text) as PolicyLock).split('\n').filter((l) => l.startsWith('named-run-list:'));
    expect(lines.map((l) => l.split(';')[0])).toEqual(['named-run-list:10', 'named-run-list:b', 'named-run-list:1', 'named-run-list:1', 'named-run-list:2']);
    expect(computeRevisionId(text)).toBe((parseLossless(text) as PolicyLock).revision_id);
  });

  it('numbers survive a merge: whole floats >= 1e15, -0.0, integers beyond 2^53', () => {
    const e = byId('numbers-through-merge');
    const r = mergeOf(e);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const chef = parseLossless(chefLock(e)) as PolicyLock;
    expect(r.lock.revision_id).toBe(chef.revision_id);
    expect(canonicalJson(r.lock.default_attributes)).toBe(canonicalJson(chef.default_attributes));
    expect(canonicalJson(r.lock.default_attributes)).toContain('"big":1e+15');
    expect(canonicalJson(r.lock.default_attributes)).toContain('"negzero":-0');
    // The bytes the console writes hash to the same id.
    expect(computeRevisionId(serializeJson(r.lock, 2))).toBe(chef.revision_id);
  });

  it('numbers survive a cookbook promotion (lossless parse, lossless write)', () => {
    const e = byId('numbers-through-merge');
    const text = chefLock(e);
    const target = parseLossless(text) as PolicyLock;
    const oldId = target.cookbook_locks.app.identifier;
    const newId = 'f'.repeat(40);
    const sourceText = text.split(oldId).join(newId);
    const r = promoteCookbookLock(parseLossless(text) as PolicyLock, parseLossless(sourceText) as PolicyLock, 'app');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    // chef-cli's id for the target with only that identifier changed.
    expect(r.lock.revision_id).toBe(computeRevisionId(sourceText));
    expect(computeRevisionId(serializeJson(r.lock, 2))).toBe(r.lock.revision_id);
  });

  it("the parent's own cookbook dependency is checked against what an include pins", () => {
    const e = byId('parent-dependency-clash');
    expect(e.chef['.'].error).toContain('Unable to satisfy');
    const r = mergeOf(e);
    expect(!r.ok && r.conflicts.map((c) => [c.kind, c.cookbook])).toEqual([['unsatisfied_constraint', 'base']]);
  });

  it("the parent's own cookbook wins over an include's, with a warning naming both", () => {
    const e = byId('parent-cookbook-wins');
    const r = mergeOf(e);
    expect(r.ok).toBe(true);
    expect(r.warnings).toEqual([expect.objectContaining({ kind: 'parent_cookbook_wins', cookbook: 'base', sources: ['winsparent', 'baseinc'] })]);
    const chef = parseLossless(chefLock(e)) as PolicyLock;
    expect(r.ok && r.lock.cookbook_locks.base.version).toBe(chef.cookbook_locks.base.version);
  });

  it('the same cookbook through different relative paths is one cookbook, located relative to the parent', () => {
    const e = byId('same-cookbook-different-paths');
    const r = mergeOf(e);
    const chef = parseLossless(chefLock(e)) as PolicyLock;
    expect(r.ok && r.lock.cookbook_locks.base.source_options).toEqual(chef.cookbook_locks.base.source_options);
    expect(chef.cookbook_locks.base.source_options).toEqual({ path: '../cookbooks/base-1.0.0' });
  });

  it('a leaf then an empty object is accepted; the later {} wins', () => {
    const e = byId('leaf-then-empty-object');
    const r = mergeOf(e);
    const chef = parseLossless(chefLock(e)) as PolicyLock;
    expect(r.ok).toBe(true);
    expect(canonicalJson(r.ok && r.lock.default_attributes)).toBe(canonicalJson(chef.default_attributes));
  });

  it('arrays are unioned like Ruby Array#|, and on == values the later source wins', () => {
    const e = byId('array-union-and-equal-numbers');
    const r = mergeOf(e);
    const chef = parseLossless(chefLock(e)) as PolicyLock;
    expect(canonicalJson(chef.default_attributes)).toBe('{"a":[1,2],"b":[1,1],"s":["x"],"t":1,"z":-0}');
    expect(canonicalJson(r.ok && r.lock.default_attributes)).toBe(canonicalJson(chef.default_attributes));
    expect(r.ok && serializeJson(r.lock.default_attributes)).toBe('{"a":[1,2],"b":[1,1.0],"z":-0.0,"t":1.0,"s":["x"]}');
  });

  it('x@1.0, recipe[x@1.0.0] and role[x] become recipe[x::default], as chef-cli writes them', () => {
    const e = byId('run-list-item-forms');
    const chef = parseLossless(chefLock(e)) as PolicyLock;
    const r = mergeOf(e);
    expect(r.ok && r.lock.run_list).toEqual([...new Set(chef.run_list)]);
    expect(chef.run_list).toContain('recipe[app::default]');
  });

  it('a run list naming a cookbook nothing locks is refused, naming it', () => {
    const e = byId('run-list-cookbook-unlocked');
    expect(e.chef['.'].error).toBeTruthy();
    const r = mergeOf(e);
    expect(!r.ok && r.conflicts.map((c) => [c.kind, c.cookbook])).toContainEqual(['missing_cookbook', 'ghost']);
  });

  it('an object then a scalar: chef-cli crashes (NoMethodError), the console reports a conflict', () => {
    const e = byId('object-then-scalar');
    expect(e.chef['.'].error).toContain('NoMethodError');
    const r = mergeOf(e);
    expect(!r.ok && r.conflicts.map((c) => [c.kind, c.path, c.sources])).toEqual([['attribute', '[e]', ['objparent', 'scalarinc']]]);
  });

  it("includes disagreeing on a cookbook the parent locks itself: accepted like chef-cli, with a warning", () => {
    const e = byId('moot-include-source-conflict');
    const r = mergeOf(e);
    expect(r.ok).toBe(true);
    expect(r.warnings.map((w) => w.kind)).toEqual(['moot_include_conflict']);
  });

  it('the parent model and includes are built from the recording alone', () => {
    const e = byId('numbers-through-merge');
    expect(parentFromSpec(e.case, subjectOf(e)).cookbook_locks!.app.identifier).toBe((parseLossless(chefLock(e)) as PolicyLock).cookbook_locks.app.identifier);
    expect(includesFromChef(subjectOf(e), e.chef)).toHaveLength(1);
  });
});
