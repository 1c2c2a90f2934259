/**
 * The one permission table. Every service asks `can()` / `assertCan()` with the
 * actor's access loaded from the database for that request; nothing here trusts
 * a role carried in a session token. Deny by default: a permission missing from
 * the table, an unknown stage, or an inactive user is refused.
 */
import { forbidden } from '@/lib/errors';

export const STAGE_LEVELS = ['view', 'promote', 'manage'] as const;
export type StageLevel = (typeof STAGE_LEVELS)[number];
const RANK: Record<StageLevel, number> = { view: 1, promote: 2, manage: 3 };

type Rule =
  | { kind: 'stage'; level: StageLevel; label: string }
  | { kind: 'owner'; label: string }
  | { kind: 'admin'; label: string }
  | { kind: 'member'; label: string }
  | { kind: 'signed-in'; label: string };

export const PERMISSIONS = {
  'stage.view': { kind: 'stage', level: 'view', label: 'view this stage' },
  'stage.promote': { kind: 'stage', level: 'promote', label: 'change what runs in this stage' },
  'stage.manage': { kind: 'stage', level: 'manage', label: 'manage this stage (settings, grants, deletion)' },
  'stage.create': { kind: 'admin', label: 'create stages' },
  'node.report': { kind: 'stage', level: 'promote', label: 'report node check-ins for this stage' },
  'policy.read': { kind: 'signed-in', label: 'read policies and revisions' },
  'policy.create': { kind: 'member', label: 'create a policy' },
  'policy.upload': { kind: 'owner', label: "upload or compose this policy's revisions" },
  'revision.delete': { kind: 'owner', label: "delete this policy's revisions" },
  'policy.delete': { kind: 'admin', label: 'delete policies' },
  'orphans.cleanup': { kind: 'admin', label: 'clean up orphaned revisions' },
  'admin.users': { kind: 'admin', label: 'manage users, teams and tokens' },
  'audit.read': { kind: 'signed-in', label: 'read the audit log' },
  'cookbook.read': { kind: 'signed-in', label: 'read cookbook artifacts' },
  'cookbook.upload': { kind: 'member', label: 'upload cookbook artifacts' },
  'cookbook.delete': { kind: 'member', label: 'delete cookbook artifacts' },
  'git.manage': { kind: 'admin', label: 'register git repositories for compose' },
  'webhooks.manage': { kind: 'admin', label: 'manage webhook subscriptions' },
} as const satisfies Record<string, Rule>;

export type Permission = keyof typeof PERMISSIONS;

/** What one user may do, loaded from the database per request. */
export interface Access {
  userId: string;
  email: string;
  name: string;
  isAdmin: boolean;
  teamIds: ReadonlySet<string>;
  /** Highest level per stage name, from the user's own and their teams' grants. */
  stageLevels: ReadonlyMap<string, StageLevel>;
  /** How the request authenticated when not through a console session or token, e.g. "chef-key:release/default" (audited). */
  via?: string;
}

export interface Target {
  stage?: string;
  /** The owning team of the policy concerned (null: no owner, admins only). */
  ownerTeamId?: string | null;
}

export function highestLevel(a: StageLevel | undefined, b: StageLevel): StageLevel {
  return !a || RANK[b] > RANK[a] ? b : a;
}

export function levelAtLeast(have: StageLevel | undefined, need: StageLevel): boolean {
  return !!have && RANK[have] >= RANK[need];
}

export function can(access: Access | null, permission: Permission, target: Target = {}): boolean {
  if (!access) return false;
  if (access.isAdmin) return true;
  const rule: Rule | undefined = PERMISSIONS[permission];
  if (!rule) return false;
  switch (rule.kind) {
    case 'signed-in':
      return true;
    case 'member':
      return access.teamIds.size > 0;
    case 'admin':
      return false;
    case 'owner':
      return !!target.ownerTeamId && access.teamIds.has(target.ownerTeamId);
    case 'stage':
      return !!target.stage && levelAtLeast(access.stageLevels.get(target.stage), rule.level);
  }
}

/**
 * The refusal message, naming the stage once ("You may not change what runs in
 * stage 'qa'.") and who may do member-only things.
 */
export function refusal(permission: Permission, target: Target = {}): string {
  const rule: Rule = PERMISSIONS[permission];
  const stage = `stage '${target.stage}'`;
  const label = !target.stage ? rule.label : rule.label.includes('this stage') ? rule.label.replace('this stage', stage) : `${rule.label} in ${stage}`;
  if (rule.kind === 'member') return `You may not ${label}: only members of a team may.`;
  if (rule.kind === 'admin') return `You may not ${label}: only administrators may.`;
  return `You may not ${label}.`;
}

export function assertCan(access: Access | null, permission: Permission, target: Target = {}): void {
  if (!can(access, permission, target)) {
    throw forbidden(refusal(permission, target));
  }
}

/**
 * Who sees a node: those who may view its stage; a node in no known stage,
 * every signed-in user (as Chef lets organization members read nodes).
 */
export function canReadNode(access: Access, stage: string | null): boolean {
  return stage ? can(access, 'stage.view', { stage }) : true;
}

/** Stages the actor may view, in the given order. */
export function viewableStages<T extends { name: string }>(access: Access, stages: T[]): T[] {
  return stages.filter((s) => can(access, 'stage.view', { stage: s.name }));
}
