import { lockForSeed, providerOf, type Db } from '@/lib/db/client';
import { stableJson } from '@/lib/domain';
import { hashPassword } from '@/lib/auth/password';
import { createHash } from 'node:crypto';
import { buildDemoLock, demoCookbookFiles, demoDependencies, DEMO_PASSWORD, DEMO_POLICIES, DEMO_PROTECTION, DEMO_SCENARIOS, DEMO_STAGES, DEMO_TEAMS, DEMO_USERS } from './demo-data';
import { demoVaultKeyPairs, seedDemoDataBags } from './demo-data-bags';
import { HOME_MEMBERSHIP } from '@/lib/services/organizations';
import { storeFileInTransaction } from '@/lib/services/cookbooks';
import { seedDemoRunHistory } from './demo-run-history';
import { audit, movePointer, checkRevision, storeRevision, openRequestIfProtected, requestTtlMs } from '@/lib/services/funnel';
import { indexNode } from '@/lib/db/queries/search-index';
import { NODE_SELECT, nodeJson } from '@/lib/services/nodes';

export { DEMO_PASSWORD, DEMO_USERS, DEMO_STAGES, DEMO_POLICIES } from './demo-data';

const DAY = 24 * 60 * 60 * 1000;

/**
 * Seeds the demo organisation into an empty database. Idempotent: a database
 * that already has users is left alone. `now` fixes the clock for tests.
 */
export async function seedDemo(client: Db, now = new Date()): Promise<{ seeded: boolean }> {
  if ((await client.user.count()) > 0) return { seeded: false };
  const [passwordHash, vaultKeys] = await Promise.all([hashPassword(DEMO_PASSWORD), demoVaultKeyPairs()]);
  const seeded = await client.$transaction(
    async (tx) => {
      // Two instances starting on one empty database: the second waits here, then finds the users and stops.
      await lockForSeed(tx, providerOf(client));
      if ((await tx.user.count()) > 0) return false;
      const teams = new Map<string, string>();
      for (const t of DEMO_TEAMS) teams.set(t.name, (await tx.team.create({ data: t })).id);
      const stages = new Map<string, { id: string; name: string }>();
      for (const s of DEMO_STAGES) stages.set(s.name, await tx.policyGroup.create({ data: s, select: { id: true, name: true } }));

      for (const u of DEMO_USERS) {
        const user = await tx.user.create({ data: { email: u.email, name: u.name, chefName: u.chefName, isAdmin: !!u.isAdmin, passwordHash, orgMemberships: HOME_MEMBERSHIP } });
        await tx.chefName.create({ data: { name: u.chefName, kind: 'user' } });
        for (const t of u.teams) await tx.teamMember.create({ data: { teamId: teams.get(t)!, userId: user.id } });
        for (const [stage, level] of Object.entries(u.grants)) {
          await tx.groupPermission.create({ data: { groupId: stages.get(stage)!.id, userId: user.id, level } });
        }
      }
      // Issue 43: the sign-in page names the demo users while their password is still this (published) one.
      await tx.orgSetting.upsert({ where: { id: 'org' }, create: { id: 'org', demoPasswordHash: passwordHash }, update: { demoPasswordHash: passwordHash } });
      const actor = { kind: 'system' as const, userId: null, email: 'seed' };
      const admin = await tx.user.findUniqueOrThrow({ where: { email: DEMO_USERS[0].email }, select: { id: true, email: true } });
      for (const sc of DEMO_SCENARIOS) {
        await tx.orderingScenario.create({
          data: { name: sc.name, note: sc.note, shared: true, ownerId: admin.id, ownerEmail: admin.email, input: JSON.stringify(sc.input), selectedRules: JSON.stringify(sc.selectedRules) },
        });
      }
      await audit(tx, null, { action: 'seed.demo', targetType: 'stage', target: 'demo', after: { policies: DEMO_POLICIES.length } });

      // Real artifacts for every cookbook the demo's locks pin, so staging and production (which require them) work.
      const artifacts = new Map<string, { name: string; version: string; identifier: string }>();
      for (const spec of DEMO_POLICIES) {
        for (let i = 0; i < spec.revisions.length; i++) {
          for (const [name, cb] of Object.entries(buildDemoLock(spec, i).lock.cookbook_locks)) artifacts.set(`${name} ${cb.identifier}`, { name, version: cb.version, identifier: cb.identifier });
        }
      }
      const files = new Set<string>();
      for (const a of artifacts.values()) {
        const content = demoCookbookFiles(a.name, a.version, demoDependencies(a.name, a.version));
        const allFiles = Object.entries(content).map(([path, text]) => {
          const checksum = createHash('md5').update(text).digest('hex');
          return { name: path, path, checksum, specificity: 'default', text };
        });
        for (const f of allFiles) {
          if (files.has(f.checksum)) continue;
          files.add(f.checksum);
          await storeFileInTransaction(tx, f.checksum, Buffer.from(f.text), now);
        }
        const manifest = {
          name: `${a.name}-${a.version}`,
          cookbook_name: a.name,
          identifier: a.identifier,
          version: a.version,
          chef_type: 'cookbook_version',
          frozen: false,
          metadata: { name: a.name, version: a.version, dependencies: Object.fromEntries(demoDependencies(a.name, a.version)) },
          all_files: allFiles.map(({ text: _t, ...f }) => f),
        };
        await tx.cookbookArtifact.create({ data: { name: a.name, identifier: a.identifier, version: a.version, manifest: stableJson(manifest), createdBy: 'seed', createdAt: new Date(now.getTime() - 60 * DAY) } });
      }

      let nodeNo = 0;
      for (const [pi, spec] of DEMO_POLICIES.entries()) {
        const policy = await tx.policy.create({ data: { name: spec.name, ownerTeamId: teams.get(spec.team)! }, select: { id: true, name: true } });
        const revs: { pk: string; revisionId: string }[] = [];
        for (let i = 0; i < spec.revisions.length; i++) {
          const { text } = buildDemoLock(spec, i);
          const age = (spec.revisions.length - i) * 9 + pi;
          const stored = await storeRevision(tx, actor, policy, checkRevision(text, spec.name), 'seed', undefined, new Date(now.getTime() - age * DAY));
          revs.push({ pk: stored.id, revisionId: stored.revisionId });
        }
        for (const stage of DEMO_STAGES) {
          const idx = spec.stages[stage.name];
          if (idx === undefined) continue;
          const at = new Date(now.getTime() - ((spec.revisions.length - idx) * 7 - stage.position) * DAY);
          await movePointer(tx, actor, { group: stages.get(stage.name)!, policy, to: revs[idx], kind: 'seed', reason: 'demo data', at });
          // Nodes: more in production; a few still run the previous revision (stale).
          const count = stage.name === 'production' ? 8 : stage.name === 'staging' ? 4 : 3;
          for (let n = 0; n < count; n++) {
            nodeNo++;
            const stale = idx > 0 && n === count - 1;
            const seeded = await tx.node.create({
              select: NODE_SELECT,
              data: {
                name: `${spec.name}-${stage.name}-${String(n + 1).padStart(2, '0')}.example.com`,
                groupId: stages.get(stage.name)!.id,
                policyId: policy.id,
                revisionApplied: revs[stale ? idx - 1 : idx].revisionId,
                platform: spec.nodes.platform,
                platformFamily: spec.nodes.platform_family,
                platformVersion: spec.nodes.platform_version,
                os: 'linux',
                lastCheckIn: new Date(now.getTime() - ((nodeNo * 7919) % 3600) * 1000),
              },
            });
            await indexNode(tx, nodeJson(seeded));
          }
        }
      }

      await seedDemoDataBags(tx, vaultKeys);
      await seedDemoRunHistory(tx, now); // issue 26: run reports (a failure mid-rollout, a missing node)

      // Issue 15: protected staging and production, their approvers, a past freeze, and one pending request.
      for (const [stage, p] of Object.entries(DEMO_PROTECTION)) {
        const g = stages.get(stage)!;
        await tx.stageProtection.create({ data: { groupId: g.id, approvalsRequired: p.approvalsRequired, rules: JSON.stringify(p.rules), updatedByEmail: 'seed', updatedAt: now } });
        for (const email of p.approvers) {
          const u = await tx.user.findUniqueOrThrow({ where: { email }, select: { id: true } });
          await tx.stageApprover.create({ data: { groupId: g.id, principal: `user:${u.id}`, userId: u.id } });
        }
      }
      const production = stages.get('production')!;
      await tx.freezeWindow.create({
        data: { groupId: production.id, startsAt: new Date(now.getTime() - 24 * DAY), endsAt: new Date(now.getTime() - 21 * DAY), reason: 'Quarter-end close: no production changes', createdByEmail: admin.email, createdById: admin.id, createdAt: new Date(now.getTime() - 30 * DAY) },
      });
      const release = await tx.user.findUniqueOrThrow({ where: { email: 'release@example.com' }, select: { id: true, email: true } });
      const gateway = await tx.policy.findUniqueOrThrow({ where: { name: 'api-gateway' }, select: { id: true, name: true } });
      const [fromRow, toRow] = await Promise.all(
        ['production', 'staging'].map((st) => tx.groupPolicy.findUnique({ where: { groupId_policyId: { groupId: stages.get(st)!.id, policyId: gateway.id } }, select: { revisionPk: true, revision: { select: { revisionId: true } } } })),
      );
      if (fromRow && toRow) {
        const at = new Date(now.getTime() - 2 * 60 * 60 * 1000);
        const req = await openRequestIfProtected(
          tx,
          { kind: 'system', userId: release.id, email: release.email },
          { group: production, policy: gateway, to: { pk: toRow.revisionPk, revisionId: toRow.revision.revisionId }, kind: 'promote', reason: 'Gateway 3.2 with nginx 11.6 for the new rate limits', freezeOverride: null, origin: { from_stage: 'staging' } },
          { pk: fromRow.revisionPk, revisionId: fromRow.revision.revisionId },
          at,
        );
        // Open on first start whatever clock the seed was given (tests fix `now` in the past).
        if (req) await tx.promotionRequest.update({ where: { id: req.id }, data: { expiresAt: new Date(Math.max(now.getTime(), Date.now()) + requestTtlMs()) } });
      }
      return true;
    },
    { timeout: 120_000 },
  );
  return { seeded };
}
