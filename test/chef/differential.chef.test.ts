/**
 * The live differential suite: generated Policyfiles and include_policy setups go through the real
 * `chef install` (chef-cli 5.6.24) and through the console, which must agree on every one:
 * - the revision id computed from chef-cli's lock text;
 * - the stored bytes after uploading that text through the API (POST /policies/:name/revisions);
 * - the console's merge of the same inputs (run lists, named run lists and their key order, cookbook
 *   locks, attributes, included_policy_locks, solution_dependencies, revision id; refusal vs refusal);
 * - a compose round trip through the API (POST /policies/:name/compose, saved), whose stored bytes
 *   must hash to chef-cli's id and hold chef-cli's content.
 * Seeds change every run (DIFF_SEED fixes them); a failure prints the seed and the case's files.
 * Sizes: DIFF_POLICIES (default 400) and DIFF_INCLUDES (default 200).
 */
import '@/test/setup-integration'; // this file's own database (copy of the migrated template)
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeRevisionId, parseLossless, serializeJson, type PolicyLock } from '@/lib/domain';
import { db } from '@/lib/db/client';
import { apiRoutes, call, seed, tokenFor } from '@/test/helpers';
const compose = apiRoutes('/api/v1/policies/[name]/compose');
const revisions = apiRoutes('/api/v1/policies/[name]/revisions');
import { runChef } from '@/test/differential/chef-run';
import { checkCase, compareLocks, expectedFromChef, parentFromSpec } from '@/test/differential/compare';
import { generateIncludeSetup, generatePolicy } from '@/test/differential/generate';
import { describeCase, type ChefOutcomes, type DiffCase } from '@/test/differential/model';
import { shrinkCase } from '@/test/differential/shrink';

const BASE_SEED = Number(process.env.DIFF_SEED ?? Math.floor(Date.now() / 1000) % 1_000_000_000);
const N_POLICIES = Number(process.env.DIFF_POLICIES ?? 400);
const N_INCLUDES = Number(process.env.DIFF_INCLUDES ?? 200);

const CORPUS_DIR = path.resolve(import.meta.dirname, '../fixtures/chef-cli-corpus');
const corpus = fs
  .readdirSync(CORPUS_DIR)
  .filter((f) => f.endsWith('.json'))
  .map((f) => parseLossless(fs.readFileSync(path.join(CORPUS_DIR, f), 'utf8')) as { defect: string; case: DiffCase; chef: ChefOutcomes })
  .map((e) => ({ ...e, case: { ...e.case, id: `corpus-${e.case.id}` } }));

const cases: DiffCase[] = [];
let outcomes = new Map<string, ChefOutcomes>();
let workRoot = '';
let token = '';
const timings: Record<string, number> = {};

const report = (c: DiffCase, problems: string[]) => `\n==== DIFF_SEED=${BASE_SEED}: ${describeCase(c)}\n${problems.join('\n')}`;

beforeAll(async () => {
  for (let i = 0; i < N_POLICIES; i++) cases.push(generatePolicy(BASE_SEED + i, i));
  for (let i = 0; i < N_INCLUDES; i++) cases.push(generateIncludeSetup(BASE_SEED + 500_000 + i, i));
  const t0 = Date.now();
  const run = await runChef([...cases, ...corpus.map((e) => e.case)], { parallel: 2 });
  timings.chef = Date.now() - t0;
  outcomes = run.outcomes;
  workRoot = run.root;
  await seed();
  token = await tokenFor('admin@example.com');
  console.log(`differential: DIFF_SEED=${BASE_SEED}, ${N_POLICIES} Policyfiles + ${N_INCLUDES} include setups, ${[...outcomes.values()].reduce((n, o) => n + Object.keys(o).length, 0)} chef installs in ${timings.chef} ms`);
});

afterAll(() => {
  console.log(`differential timings (ms): ${JSON.stringify(timings)}`);
  if (workRoot) fs.rmSync(workRoot, { recursive: true, force: true });
});

describe('chef-cli 5.6.24 and the console agree', () => {
  it(`on generated cases: revision ids from chef-cli's text and the console's merge of the same inputs`, async () => {
    const t0 = Date.now();
    const failures: string[] = [];
    const failing: DiffCase[] = [];
    const stats = { chefAccepted: 0, chefRefused: 0, includeFailed: 0 };
    for (const c of cases) {
      const checks = checkCase(c, outcomes.get(c.id)!);
      const subject = checks[checks.length - 1];
      if (subject.consoleOk === null) stats.includeFailed++;
      else if (subject.chefOk) stats.chefAccepted++;
      else stats.chefRefused++;
      const problems = checks.flatMap((x) => x.problems.map((p) => `${x.policy}: ${p}`));
      if (problems.length) {
        failures.push(report(c, problems));
        failing.push(c);
      }
    }
    timings.merge = Date.now() - t0;
    console.log(`differential: subjects ${JSON.stringify(stats)}`);
    // Minimal reproductions for the first few failures (one chef-cli run per shrinking step).
    for (const c of failing.slice(0, 3)) {
      const { case: small, runs } = await shrinkCase(c);
      failures.push(`\n==== minimal (after ${runs} chef-cli runs), DIFF_SEED=${BASE_SEED}: ${describeCase(small)}`);
    }
    expect(failures.join('\n')).toBe('');
    expect(stats.chefAccepted).toBeGreaterThan(cases.length / 3);
    expect(stats.chefRefused).toBeGreaterThan(10);
  });

  it('on a compose round trip through the API: the saved bytes hash to chef-cli’s id and hold chef-cli’s lock', async () => {
    const t0 = Date.now();
    const failures: string[] = [];
    let composed = 0;
    for (const c of cases) {
      const o = outcomes.get(c.id)!;
      const p = c.policies[c.policies.length - 1];
      const chefLock = o[p.dir].lock;
      if (!chefLock || p.includes.some((inc) => !o[inc.dir].lock)) continue;
      const parent = parentFromSpec(c, p);
      const body = {
        parent: { run_list: parent.run_list, named_run_lists: parent.named_run_lists, cookbook_locks: parent.cookbook_locks, default_attributes: parent.default_attributes, override_attributes: parent.override_attributes, solution_dependencies: parent.solution_dependencies },
        includes: p.includes.map((inc) => ({ name: inc.name, source: { type: 'upload', lock: o[inc.dir].lock!, path: inc.path } })),
        save: true,
      };
      // The body as text, written losslessly: the route must read 1.0e+15, -0.0 and "10"-before-"2" as they are.
      const res = await call(compose.POST, 'POST', { token, params: { name: p.name }, body: serializeJson(body) });
      if (res.status !== 201 && res.status !== 200) {
        failures.push(report(c, [`compose answered ${res.status}: ${res.text.slice(0, 500)}`]));
        continue;
      }
      composed++;
      const expected = expectedFromChef(chefLock);
      const row = await db().policyRevision.findFirstOrThrow({ where: { revisionId: res.json.saved.revisionId, policy: { name: p.name } }, select: { document: true, computedRevisionId: true, revisionId: true } });
      const problems: string[] = [];
      if (computeRevisionId(row.document) !== expected.lock.revision_id) problems.push(`stored bytes hash to ${computeRevisionId(row.document)}, expected ${expected.lock.revision_id}`);
      if (row.computedRevisionId !== row.revisionId) problems.push(`stored computed id ${row.computedRevisionId} differs from the revision id ${row.revisionId}`);
      const chefId = (parseLossless(chefLock) as PolicyLock).revision_id;
      problems.push(...compareLocks(parseLossless(row.document) as PolicyLock, expected.lock, chefId, expected.deduped).map((x) => `stored: ${x}`));
      if (problems.length) failures.push(report(c, problems));
    }
    timings.compose = Date.now() - t0;
    console.log(`differential: ${composed} compose round trips`);
    expect(failures.join('\n')).toBe('');
    expect(composed).toBeGreaterThan(5);
  });

  it('on the recorded corpus: chef-cli still produces the recorded outcomes', () => {
    const failures: string[] = [];
    for (const e of corpus) {
      const fresh = outcomes.get(e.case.id)!;
      for (const [dir, rec] of Object.entries(e.chef)) {
        const now = fresh[dir];
        if (rec.lock !== null ? now.lock !== rec.lock : now.lock !== null) failures.push(`${e.case.id} ${dir}: recorded ${rec.lock ? 'a lock' : 'a refusal'}, chef-cli now gives ${now.lock ? (rec.lock ? 'another lock' : 'a lock') : `a refusal: ${now.error}`}`);
      }
    }
    expect(failures).toEqual([]);
    expect(corpus.length).toBeGreaterThanOrEqual(15);
  });

  it('on stored bytes after uploading chef-cli’s locks through the API', async () => {
    const t0 = Date.now();
    const failures: string[] = [];
    let uploads = 0;
    for (const c of cases) {
      const o = outcomes.get(c.id)!;
      for (const p of c.policies) {
        const text = o[p.dir].lock;
        if (!text) continue;
        const chefId = (parseLossless(text) as PolicyLock).revision_id;
        const res = await call(revisions.POST, 'POST', { token, params: { name: p.name }, body: text });
        uploads++;
        if (res.status !== 201 && res.status !== 200) {
          failures.push(report(c, [`${p.name}: upload answered ${res.status}: ${res.text.slice(0, 300)}`]));
          continue;
        }
        const row = await db().policyRevision.findFirstOrThrow({ where: { revisionId: chefId, policy: { name: p.name } }, select: { document: true, computedRevisionId: true } });
        const problems: string[] = [];
        // 200 means the compose round trip stored it first; then the stored bytes are the console's own.
        if (res.status === 201 && row.document !== text) problems.push(`${p.name}: stored bytes differ from the uploaded text`);
        if (row.computedRevisionId !== chefId) problems.push(`${p.name}: computed id of the stored bytes ${row.computedRevisionId}, chef-cli ${chefId}`);
        if (computeRevisionId(row.document) !== chefId) problems.push(`${p.name}: recomputed from the stored bytes ${computeRevisionId(row.document)}, chef-cli ${chefId}`);
        if (problems.length) failures.push(report(c, problems));
      }
    }
    timings.upload = Date.now() - t0;
    console.log(`differential: ${uploads} uploads`);
    expect(failures.join('\n')).toBe('');
    expect(uploads).toBeGreaterThan(N_POLICIES / 2);
  });
});
