/**
 * Chef Infra Server's own conformance suite, unmodified: every spec file of
 * an endpoint the console serves runs against a console on a freshly emptied
 * database (a new copy of the migrated template per spec file) holding only
 * the users admin (superuser), viewer and ops with their keys and the
 * organization's validator. The test fails on any failing example that is not
 * in test/chef/pedant-expected-failures (each entry names the console rule
 * that causes it), and on an entry of that list that covers no failing example
 * any more (the list stays short and true). It prints each file's pass count
 * and seconds (PEDANT_SPECS=a,b runs some files only; PEDANT_SUMMARY=file.json
 * and PEDANT_REPORTS=dir keep the numbers and RSpec's reports).
 *
 * `npm run test:chef` runs it; without pedant installed that script says so in
 * one line (a failure when CHEF_INTEROP=required).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db, disconnectDb } from '@/lib/db/client';
import { rotateValidator } from '@/lib/services/clients';
import { addUserKey } from '@/lib/services/keys';
import { startChefHarness } from '../chef-harness';
import { loadAccess } from '@/lib/db/queries/access';
import { search } from '@/lib/services/search';
import { AppError } from '@/lib/errors';
import { selfSignedCert } from '@/test/tls-cert';
import { expectedEntry, PEDANT_SPECS, pedantDir, readExpectedFailures, runPedant, startSolrStandIn } from './pedant';

const found = pedantDir();
const EXPECTED_FILE = path.resolve('test/chef/pedant-expected-failures');
const expected = readExpectedFailures(EXPECTED_FILE);
const SYSTEM = { kind: 'system' as const, userId: null, email: 'pedant-harness' };
const only = process.env.PEDANT_SPECS ? process.env.PEDANT_SPECS.split(',').map((s) => s.trim()) : null;
const specs = PEDANT_SPECS.filter((s) => !only || only.includes(s));

let work: string;
const template = path.resolve('data/test/template.db');
const summary: { spec: string; passed: number; failed: number; pending: number; expected: number; seconds: number }[] = [];

beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'pedant-'));
});

afterAll(async () => {
  if (summary.length) {
    const lines = summary.map((s) => `  ${s.spec.padEnd(40)} ${String(s.passed).padStart(4)}/${String(s.passed + s.failed).padEnd(4)} passed (${s.expected} expected failures, ${s.pending} pending)  ${s.seconds.toFixed(1)} s`);
    console.log(`oc-chef-pedant, unmodified:\n${lines.join('\n')}`);
    if (process.env.PEDANT_SUMMARY) fs.writeFileSync(process.env.PEDANT_SUMMARY, JSON.stringify(summary, null, 2));
  }
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

/** A new empty database for one spec file: the migrated template copied, the process switched to it. */
async function freshDatabase(name: string): Promise<string> {
  await disconnectDb();
  const file = path.join(work, `${name}.db`);
  fs.copyFileSync(template, file);
  process.env.DATABASE_URL = `file:${file}`;
  return file;
}

/** How many objects of a Solr type (`node`, `role`, or a data bag's name for its items) are indexed under `name`: the console's search as the superuser sees it. */
async function indexedCount(org: string, type: string, name: string): Promise<number> {
  const admin = await db().user.findFirstOrThrow({ where: { chefName: 'admin' }, select: { id: true } });
  const actor = (await loadAccess(admin.id))!;
  try {
    const r = await search(actor, type, { q: `name:"${name.replace(/["\\]/g, '\\$&')}"`, rows: '0' }, { org });
    return r.total;
  } catch (e) {
    // An index the console does not have (role; a data bag already deleted) holds nothing.
    if (e instanceof AppError && e.status === 404) return 0;
    throw e;
  }
}

describe.runIf('dir' in found)('oc-chef-pedant, unmodified', () => {
  it('has a reviewed reason for every expected failure', () => {
    for (const [id, rule] of expected) {
      expect(PEDANT_SPECS.some((s) => id.startsWith(s + '[')), `${id}: not in a spec file this test runs`).toBe(true);
      expect(rule.length, `${id}: give the console rule`).toBeGreaterThan(10);
    }
  });

  for (const spec of specs) {
    it(spec, { timeout: 1_800_000 }, async () => {
      const dir = (found as { dir: string }).dir;
      const slug = spec.replace(/[^a-z0-9]+/gi, '-');
      await freshDatabase(slug);
      // header_spec checks what Chef Server's deployment answers plain HTTP on its HTTPS port: it is run against
      // the console serving HTTPS as TLS_CERT_FILE makes it (lib/ops/tls.ts; pedant does not verify certificates).
      const tls = spec === 'header_spec.rb' ? selfSignedCert(work) : undefined;
      const chef = await startChefHarness({ seed: false, tls });
      const keys = path.join(work, `${slug}-keys`);
      fs.mkdirSync(keys);
      try {
        for (const user of ['admin', 'viewer', 'ops']) {
          const k = await addUserKey(SYSTEM, user, { name: 'default' });
          fs.writeFileSync(path.join(keys, `${user}.pem`), k.privateKey, { mode: 0o600 });
        }
        const v = await rotateValidator(SYSTEM, chef.org);
        fs.writeFileSync(path.join(keys, 'validator.pem'), v.privateKey, { mode: 0o600 });
        expect(await db().policy.count()).toBe(0);
        // Pedant's "bad" user (ops, `associate: false`) is outside the organization (issue 23).
        await db().orgMember.deleteMany({ where: { user: { chefName: 'ops' } } });

        // The search specs talk to Solr itself too: a stand-in answers from the console's index (test/chef/pedant.ts).
        const solr = spec.startsWith('search/') ? await startSolrStandIn((type, name) => indexedCount(chef.org, type, name)) : null;
        const started = performance.now();
        const out = path.join(work, `${slug}.json`);
        const report = await runPedant({ dir, baseUrl: chef.url, org: chef.org, keysDir: keys, spec, out, solr: solr?.url }).finally(() => solr?.close());
        const seconds = (performance.now() - started) / 1000;
        if (process.env.PEDANT_REPORTS) fs.copyFileSync(out, path.join(process.env.PEDANT_REPORTS, `${slug}.json`));

        const failed = report.examples.filter((e) => e.status === 'failed');
        const unexpected = failed.filter((e) => !expectedEntry(expected, e.id));
        // Every entry of this file must still cover a failing example (else it is stale: remove it).
        const used = new Set(failed.map((e) => expectedEntry(expected, e.id)).filter(Boolean));
        const stale = [...expected.keys()].filter((id) => id.startsWith(spec + '[') && !used.has(id));
        summary.push({
          spec,
          passed: report.examples.filter((e) => e.status === 'passed').length,
          failed: failed.length,
          pending: report.examples.filter((e) => e.status === 'pending').length,
          expected: failed.length - unexpected.length,
          seconds,
        });
        const show = (list: typeof failed) => list.map((e) => `- ${e.id} (line ${e.line}) ${e.description}\n    ${e.message.split('\n').slice(0, 12).join('\n    ')}`).join('\n');
        // A context entry of the list (a setup pedant cannot complete here) also breaks that context's after-hooks.
        const setupBroken = [...used].some((id) => !failed.some((e) => e.id === id));
        if (!setupBroken) expect(report.errorsOutside, `errors outside examples:\n${report.messages.join('\n')}\n${report.stdout.slice(-3000)}`).toBe(0);
        expect(report.examples.length, report.stdout.slice(-3000)).toBeGreaterThan(0);
        expect(unexpected.length, `failing examples not in ${path.basename(EXPECTED_FILE)}:\n${show(unexpected)}`).toBe(0);
        expect(stale, 'listed as expected failures but no example they name fails now: remove them from the list').toEqual([]);
      } finally {
        await chef.close();
      }
    });
  }
});

describe.runIf(!('dir' in found))('oc-chef-pedant (not installed)', () => {
  // scripts/test-chef.ts says NOT RUN in one line and leaves this file out; run directly without pedant, it fails saying why.
  it('needs oc-chef-pedant', () => {
    expect.fail((found as { missing: string }).missing);
  });
});
