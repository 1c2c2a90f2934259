/**
 * Issue 42: the importer's rights phase. Reads the source's groups and ACLs, asks the pure mapping
 * (lib/domain/import/rights.ts: planRights) what imported people may do, and applies it through the console's
 * own services (createTeam, setTeamMembership, setStageGrant, setDataBagGrant, setOrgAdmin; a policy's owner
 * here), each change a report line and audited as `import`. Levels are only ever raised, never lowered, and a
 * policy that has an owner keeps it.
 *
 * Issue 41 (item 4), for rights as for keys: people the console had before (accounts not made by an import) get
 * nothing from the source unless `--prefer source`; a team the console had before is left as it is unless
 * `--prefer source`. The report lists each person's resulting rights (in the dry run the same), and whether
 * they were given.
 */
import type { Access, StageLevel } from '@/lib/auth/permissions';
import { levelAtLeast } from '@/lib/auth/permissions';
import { db } from '@/lib/db/client';
import { planRights, rightsByPerson, type Acl, type AclKind, type RightsMode } from '@/lib/domain';
import type { ImportKind, ImportRights } from '@/lib/types/import';
import { setOrgAdmin, HOME_ORG_ID } from '@/lib/services/organizations';
import { setDataBagGrant } from '@/lib/services/data-bags';
import { createTeam, setTeamMembership } from '@/lib/services/users';
import { setStageGrant } from '@/lib/services/stages';
import { audit, transaction } from '@/lib/services/funnel';
import { loadRecord, saveRecord } from './records';
import type { Outcome, Plan } from './plan';
import type { ImportSource } from './source';

export interface RightsPhaseInput {
  actor: Access;
  source: ImportSource;
  mode: RightsMode;
  prefer: 'source' | 'console' | null;
  dry: boolean;
  /** The organization's members (Chef names). */
  members: string[];
  stages: string[];
  bags: string[];
  policies: string[];
  /** Chef names of accounts made by an import (this run's included). */
  importUsers: ReadonlySet<string>;
  /** E-mails of accounts the run creates (a dry run names them before they exist). */
  emails: ReadonlyMap<string, string>;
  one: (kind: ImportKind, name: string, decide: () => Promise<Plan>) => Promise<void>;
  runId: string;
}

const did = (detail: string): Outcome => ({ kind: 'imported', detail });

export async function importRights(o: RightsPhaseInput): Promise<ImportRights> {
  const notes: string[] = [];
  if (o.mode === 'none') return { mode: 'none', people: [], notes: ['--rights none: imported people have their accounts and keys only; give them rights in Admin → Users and Admin → Stages'] };

  // The source's groups and ACLs (what it cannot give falls back to Chef's defaults, said in the notes).
  let groups = null;
  try {
    groups = o.source.groups ? await o.source.groups() : null;
  } catch (e) {
    notes.push(`the source's groups could not be read (${(e as Error).message}): Chef's default groups assumed (users: every member)`);
  }
  if (groups === null && !notes.length) notes.push("the source gives no groups: Chef's default groups assumed (users: every member; admins: unknown, so nobody is made an organization admin)");
  const acls = new Map<string, Acl | null>();
  const readAcl = async (kind: AclKind | 'containers', name: string) => {
    if (!o.source.acl) return;
    try {
      acls.set(`${kind}/${name}`, await o.source.acl(kind, name));
    } catch (e) {
      acls.set(`${kind}/${name}`, null);
      notes.push(`the ACL of ${kind}/${name} could not be read (${(e as Error).message}): its container's or Chef's default used`);
    }
  };
  for (const c of ['policy_groups', 'data', 'policies']) await readAcl('containers', c);
  for (const s of o.stages) await readAcl('policy_groups', s);
  for (const b of o.bags) await readAcl('data', b);
  for (const p of o.policies) await readAcl('policies', p);
  const plan = planRights({
    mode: o.mode,
    groups,
    members: o.members,
    stages: o.stages,
    bags: o.bags,
    policies: o.policies,
    acl: (kind, name) => acls.get(`${kind}/${name}`) ?? null,
    containerAcl: (kind) => acls.get(`containers/${kind}`) ?? null,
  });
  notes.push(...plan.notes);

  // The people: console accounts by Chef name; whether they may be given anything.
  const names = new Set([...plan.teams.flatMap((t) => t.members), ...plan.orgAdmins, ...plan.stageGrants.flatMap((g) => ('user' in g.subject ? [g.subject.user] : []))]);
  const accounts = new Map((await db().user.findMany({ where: { chefName: { in: [...names] } }, select: { id: true, email: true, chefName: true } })).map((u) => [u.chefName!, u]));
  const eligible = (user: string) => o.importUsers.has(user) || o.prefer === 'source';
  const would = (s: string) => `would ${s}`;

  // Teams (made by an import, or the console's own only with --prefer source).
  const usableTeams = new Set<string>();
  for (const t of plan.teams) {
    const existing = await db().team.findUnique({ where: { name: t.team }, select: { id: true } });
    const rec = await loadRecord('team', t.team);
    if (existing && !rec?.created && o.prefer !== 'source') {
      notes.push(`team ${t.team} exists in the console (not made by an import): left as it is, and Chef group ${t.group}'s rights are not given through it (--prefer source to use it)`);
      continue;
    }
    if (!existing && !t.members.some(eligible)) {
      notes.push(`Chef group ${t.group}: none of its people is an account the import may give rights to, no team ${t.team} made`);
      continue;
    }
    usableTeams.add(t.team);
    if (!existing) {
      await o.one('team', t.team, async () => ({
        kind: 'imported',
        would: would(`be created (Chef group ${t.group})`),
        apply: async () => {
          await createTeam(o.actor, { name: t.team, description: `Chef group ${t.group} (npm run import)` });
          await saveRecord('team', t.team, { sourceHash: t.group, consoleHash: t.group, created: true, runId: o.runId });
          return did(`created (Chef group ${t.group})`);
        },
      }));
    }
    for (const user of t.members) {
      if (!eligible(user)) continue;
      const account = accounts.get(user);
      await o.one('right', `${t.team}/${user}`, async () => {
        if (account && existing && (await db().teamMember.findUnique({ where: { teamId_userId: { teamId: existing.id, userId: account.id } } }))) return { kind: 'unchanged' };
        if (!account && !o.dry) return { kind: 'skipped', detail: `no console account ${user} (its user could not be imported)` };
        return {
          kind: 'imported',
          would: would(`join team ${t.team}`),
          apply: async () => {
            await setTeamMembership(o.actor, { team: t.team, email: account!.email, member: true });
            return did(`joined team ${t.team} (Chef group ${t.group})`);
          },
        };
      });
    }
  }

  // Stage grants: raised to the planned level, never lowered.
  for (const g of plan.stageGrants) {
    const subject = 'team' in g.subject ? { type: 'team' as const, name: g.subject.team } : { type: 'user' as const, name: g.subject.user };
    if (subject.type === 'team' && !usableTeams.has(subject.name)) continue;
    if (subject.type === 'user' && !eligible(subject.name)) continue;
    await o.one('right', `${subject.name} → ${g.stage}`, async () => {
      const stage = await db().policyGroup.findUnique({ where: { name: g.stage }, select: { id: true } });
      const account = subject.type === 'user' ? accounts.get(subject.name) : null;
      if (subject.type === 'user' && !account && !o.dry) return { kind: 'skipped', detail: `no console account ${subject.name}` };
      let current: StageLevel | undefined;
      if (stage) {
        const where = subject.type === 'team' ? { groupId: stage.id, team: { name: subject.name } } : { groupId: stage.id, userId: account?.id ?? '' };
        current = (await db().groupPermission.findFirst({ where, select: { level: true } }))?.level as StageLevel | undefined;
      } else if (!o.dry) return { kind: 'skipped', detail: `stage ${g.stage} is not in the console` };
      if (levelAtLeast(current, g.level)) return { kind: 'unchanged' };
      const what = `${g.level} on ${g.stage} (from ${g.from})`;
      return {
        kind: 'imported',
        would: would(`get ${what}`),
        apply: async () => {
          await setStageGrant(o.actor, { stage: g.stage, subject: subject.type === 'team' ? { type: 'team', name: subject.name } : { type: 'user', email: account!.email }, level: g.level });
          return did(what);
        },
      };
    });
  }

  // Data bag write grants.
  for (const b of plan.bagGrants) {
    if (!usableTeams.has(b.team)) continue;
    await o.one('right', `${b.team} → data bag ${b.bag}`, async () => {
      const team = await db().team.findUnique({ where: { name: b.team }, select: { id: true } });
      const grant = team ? await db().dataBagGrant.findFirst({ where: { teamId: team.id, bag: { name: b.bag } }, select: { level: true } }) : null;
      if (grant?.level === 'write') return { kind: 'unchanged' };
      return {
        kind: 'imported',
        would: would('get write on the data bag'),
        apply: async () => {
          const t = await db().team.findUniqueOrThrow({ where: { name: b.team }, select: { id: true } });
          await setDataBagGrant(o.actor, b.bag, t.id, 'write');
          return did('write on the data bag');
        },
      };
    });
  }

  // Owners of imported policies that have none (an owner the console gave is kept).
  for (const p of plan.policyOwners) {
    if (!usableTeams.has(p.team)) continue;
    await o.one('right', `${p.team} → policy ${p.policy}`, async () => {
      const policy = await db().policy.findUnique({ where: { name: p.policy }, select: { id: true, ownerTeamId: true } });
      if (policy?.ownerTeamId) return { kind: 'unchanged' };
      return {
        kind: 'imported',
        would: would('own the policy'),
        apply: async () => {
          const team = await db().team.findUniqueOrThrow({ where: { name: p.team }, select: { id: true } });
          const changed = await transaction(async (tx) => {
            const { count } = await tx.policy.updateMany({ where: { name: p.policy, ownerTeamId: null }, data: { ownerTeamId: team.id } });
            if (count) await audit(tx, o.actor, { action: 'policy.owner', targetType: 'policy', target: p.policy, policyName: p.policy, before: { ownerTeam: null }, after: { ownerTeam: p.team } });
            return count > 0;
          });
          return changed ? did('owns the policy') : { kind: 'unchanged' };
        },
      };
    });
  }

  // The organization's admins (Chef's admins group).
  for (const user of plan.orgAdmins) {
    if (!eligible(user)) continue;
    await o.one('right', `${user} → organization admin`, async () => {
      const account = accounts.get(user);
      if (account) {
        const inGroup = await db().chefGroupMember.findFirst({ where: { userId: account.id, group: { orgId: HOME_ORG_ID, name: 'admins' } }, select: { member: true } });
        if (inGroup) return { kind: 'unchanged' };
      } else if (!o.dry) return { kind: 'skipped', detail: `no console account ${user}` };
      return {
        kind: 'imported',
        would: would("be an organization admin (Chef's admins group)"),
        apply: async () => {
          await setOrgAdmin(o.actor, account!.id, true);
          return did("organization admin (Chef's admins group)");
        },
      };
    });
  }

  // What guards still decide, whatever the levels.
  const guarded = await db().policyGroup.findMany({ where: { name: { in: o.stages } }, select: { name: true, protection: { select: { approvalsRequired: true } }, freezes: { where: { OR: [{ weekly: true }, { endsAt: { gt: new Date() } }] }, select: { id: true } } } });
  for (const s of guarded) {
    if (s.protection) notes.push(`${s.name} is protected: moves into it still open promotion requests (${s.protection.approvalsRequired} approval(s)) whatever a team's level`);
    if (s.freezes.length) notes.push(`${s.name} has freeze windows: moves into it are refused while one is open, unless someone who manages it overrides`);
  }

  const byPerson = rightsByPerson(plan);
  const people = [...byPerson.keys()].sort().map((user) => ({
    user,
    email: accounts.get(user)?.email ?? o.emails.get(user) ?? null,
    rights: byPerson.get(user)!,
    given: eligible(user),
    ...(eligible(user) ? {} : { note: 'an existing console account (not made by an import): none of these given (run with --prefer source to give them)' }),
  }));
  return { mode: o.mode, people, notes };
}
