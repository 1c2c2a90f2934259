/**
 * Runs the real `chef install` for many cases: workspaces are written under one temp directory and
 * installed by at most `parallel` Ruby processes, each installing a batch of cases in one process
 * (chef-batch.rb; loading Ruby and chef-cli once per batch instead of once per Policyfile).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { workspaceFiles, type ChefOutcomes, type DiffCase } from './model';

const BATCH_SCRIPT = path.resolve(import.meta.dirname, 'chef-batch.rb');

export function writeWorkspace(root: string, c: DiffCase): string {
  const dir = path.join(root, c.id);
  fs.rmSync(dir, { recursive: true, force: true });
  for (const [file, text] of Object.entries(workspaceFiles(c))) {
    const full = path.join(dir, file);
    fs.mkdirSync(path.dirname(full), { recursive: true });
    fs.writeFileSync(full, text);
  }
  return dir;
}

function runBatch(jobs: { dir: string; policyfile: string }[], jobFile: string): Promise<Map<string, { ok: boolean; error: string | null }>> {
  fs.writeFileSync(jobFile, JSON.stringify(jobs));
  return new Promise((resolve, reject) => {
    const child = spawn('ruby', [BATCH_SCRIPT, jobFile], { stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const results = new Map<string, { ok: boolean; error: string | null }>();
      for (const line of out.split('\n')) {
        if (!line.startsWith('{"dir"')) continue; // chef's own log lines go to stdout too
        const r = JSON.parse(line) as { dir: string; ok: boolean; error: string | null };
        results.set(r.dir, { ok: r.ok, error: r.error });
      }
      if (results.size !== jobs.length) reject(new Error(`chef batch exited ${code} after ${results.size}/${jobs.length} installs:\n${err.slice(-2000)}`));
      else resolve(results);
    });
  });
}

/** Installs every Policyfile of every case (includes before their parent); outcomes by case id, then policy dir. */
export async function runChef(cases: DiffCase[], opts: { root?: string; parallel?: number } = {}): Promise<{ root: string; outcomes: Map<string, ChefOutcomes> }> {
  const root = opts.root ?? fs.mkdtempSync(path.join(os.tmpdir(), 'chef-diff-'));
  const parallel = opts.parallel ?? 2;
  const dirs = new Map(cases.map((c) => [c.id, writeWorkspace(root, c)] as const));
  const batches: DiffCase[][] = Array.from({ length: parallel }, () => []);
  cases.forEach((c, i) => batches[i % parallel].push(c));
  const results = await Promise.all(
    batches.map((batch, i) =>
      batch.length
        ? runBatch(
            batch.flatMap((c) => c.policies.map((p) => ({ dir: path.join(dirs.get(c.id)!, p.dir), policyfile: 'Policyfile.rb' }))),
            path.join(root, `jobs-${i}.json`),
          )
        : Promise.resolve(new Map()),
    ),
  );
  const all = new Map<string, { ok: boolean; error: string | null }>();
  for (const r of results) for (const [k, v] of r) all.set(k, v);
  const outcomes = new Map<string, ChefOutcomes>();
  for (const c of cases) {
    const o: ChefOutcomes = {};
    for (const p of c.policies) {
      const dir = path.join(dirs.get(c.id)!, p.dir);
      const r = all.get(dir)!;
      const lockFile = path.join(dir, 'Policyfile.lock.json');
      o[p.dir] = r.ok && fs.existsSync(lockFile) ? { lock: fs.readFileSync(lockFile, 'utf8'), error: null } : { lock: null, error: r.error ?? 'no lock written' };
    }
    outcomes.set(c.id, o);
  }
  return { root, outcomes };
}
