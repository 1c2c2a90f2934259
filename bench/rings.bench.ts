/**
 * Issue 30: the ring-aware policy read. A node (its own client, signing as
 * chef-client does) reads its policy while the stage has an active ringed
 * rollout that holds it: the read path computes the node's bucket and answers
 * the ring's revision in the same single query. Compared, like the signed
 * policy read row (bench/chef-read.bench.ts), with bare node:http serving the
 * same bytes; the one-door issue's wire-speed goal is >= 0.30 of it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { signRequest } from '@/lib/auth/chef-signing';
import { createDb } from '@/lib/db/client';
import { round, type BenchResult } from './lib/harness';
import { startBare, throughput } from './lib/servers';
import { chefClientRun, startChef } from './lib/chef-bench';

const ROOT = path.resolve(import.meta.dirname, '..');

export default async function bench(seconds: number): Promise<BenchResult[]> {
  const dbFile = path.join(ROOT, 'data', 'bench', 'rings-43410.db');
  fs.mkdirSync(path.dirname(dbFile), { recursive: true });
  for (const f of [dbFile, `${dbFile}-journal`, `${dbFile}-wal`, `${dbFile}-shm`]) fs.rmSync(f, { force: true });
  const app = await startChef(`file:${dbFile}`, 43410);
  try {
    const node = 'bench-ring-node';
    const { nodeKey } = await chefClientRun(app, node);
    // A ring on production × webapp holding the node (named), toward another revision of webapp.
    const client = createDb(app.dbUrl);
    const pointer = await client.groupPolicy.findFirstOrThrow({ where: { group: { name: 'production' }, policy: { name: 'webapp' } }, select: { groupId: true, policyId: true, revisionPk: true, revision: { select: { revisionId: true } } } });
    const to = await client.policyRevision.findFirstOrThrow({ where: { policyId: pointer.policyId, id: { not: pointer.revisionPk } }, select: { id: true, revisionId: true } });
    await client.ringRollout.create({
      data: {
        groupId: pointer.groupId,
        policyId: pointer.policyId,
        groupName: 'production',
        policyName: 'webapp',
        fromRevisionPk: pointer.revisionPk,
        fromRevisionId: pointer.revision.revisionId,
        toRevisionPk: to.id,
        toRevisionId: to.revisionId,
        steps: JSON.stringify([5, 100]),
        step: 0,
        percent: 5,
        status: 'active',
        openKey: `${pointer.groupId}:${pointer.policyId}`,
        createdByEmail: 'bench',
        nodes: { create: [{ nodeName: node }] },
      },
    });
    await client.$disconnect();

    const readPath = `${app.org}/policy_groups/production/policies/webapp`;
    const headers = signRequest({ method: 'GET', path: readPath, userId: node, privateKey: nodeKey, protocol: '1.1' });
    const res = await fetch(`${app.url}${readPath}`, { headers });
    const body = await res.text();
    if (!res.ok || JSON.parse(body).revision_id !== to.revisionId) throw new Error(`the ring read answered ${res.status} ${body.slice(0, 200)}: not the ring's revision`);

    const bare = await startBare(43411, body);
    try {
      const base = await throughput(`${bare.url}/`, seconds);
      const ours = await throughput(`${app.url}${readPath}`, seconds, headers);
      if (ours.non2xx) throw new Error(`ring-aware read answered ${ours.non2xx} non-2xx responses`);
      const ratio = ours.rps / base.rps;
      return [
        {
          name: 'ring-aware signed policy read: a node in an active ring, GET /organizations/:org/policy_groups/:g/policies/:p, protocol 1.1 (32 connections)',
          ours_ms: round(ours.latencyMs),
          baseline: 'bare node:http, same bytes',
          baseline_ms: round(base.latencyMs),
          ratio: round(ratio),
          goal: '>= 0.30 of baseline req/s',
          met: ratio >= 0.3,
          note: `${Math.round(ours.rps)} vs ${Math.round(base.rps)} req/s over ${seconds}s; the node is answered the ring's revision ${to.revisionId.slice(0, 10)}; body ${body.length} bytes`,
        },
      ];
    } finally {
      await bare.stop();
    }
  } finally {
    app.stop();
  }
}
