/**
 * Issue 41 (docs/stage-binding.md): the stage a node is in is the console's fact (`Node.groupId`), decided by a
 * user with rights on the stages involved, by the importer, or once by enrollment; never by what a node or its
 * client says. This module is the one place that answers "which stage is this node in" for others (the data
 * collector counts runs by it) and the one check of a client naming a stage at a door (node save, policy read,
 * run report): a client whose node is in stage S may name only S; a client whose node is in no stage yet may name
 * a stage its enrollment allows (its stage validator's stage, or a stage with open enrollment).
 */
import { db, type Tx } from '@/lib/db/client';
import { can, type Access, type Actor, type ClientActor } from '@/lib/auth/permissions';
import { HOME_ORG_ID } from '@/lib/domain/organizations';
import { forbidden } from '@/lib/errors';

/** Which door a client named a stage at (the refusal says it). */
export type StageClaimDoor = 'node save' | 'policy read' | 'run report';

/**
 * The stage the console has node `name` in: the name of the stage its stored `Node.groupId` points at. null: no
 * such node, or a node in no known stage. Never what a message, a request or the node document says.
 */
export async function nodeStage(name: string, client: Tx = db()): Promise<string | null> {
  const n = await client.node.findUnique({ where: { name }, select: { group: { select: { name: true } } } });
  return n?.group?.name ?? null;
}

/**
 * The enrollment rule (pure): may a client (or a validator's clients) whose enrollment is `enrollStage` place a
 * node in `stage`? Its stage validator's stage only, or (null: the plain validator, users' clients) the stages
 * with open enrollment.
 */
export function mayEnroll(enrollStage: string | null | undefined, stage: { name: string; openEnrollment: boolean }): boolean {
  return enrollStage ? enrollStage === stage.name : stage.openEnrollment;
}

/** The ways a user moves a node, for refusals that tell a client how its node gets to another stage. */
export function howToMove(node: string, to: string): string {
  return `To move the node, a user who may change what runs in both stages moves it: the node's page in the console (Move to stage), \`knife node policy set ${node} ${to} POLICY\` signed as that user, or PUT /api/v1/nodes/${node}/stage {"stage": "${to}"}. chef-client then follows the node's stage when client.rb sets no policy_group (or set it to '${to}').`;
}

/** The 403 of a client naming another stage than the one the console has its node in. */
export function stageMismatch(client: string, stage: string, named: string | null, door: StageClaimDoor) {
  const what = named === null ? 'no stage' : `stage '${named}'`;
  return forbidden(`Node '${client}' is in stage '${stage}' (the console decides a node's stage); its client may not name ${what} (${door}). ${howToMove(client, named ?? stage)}`);
}

/** The 403 of a client placing its node in a stage its enrollment does not allow. */
export function enrollmentRefused(client: string, enrollStage: string | null | undefined, stage: string) {
  const why = enrollStage ? `its validator enrolls only into stage '${enrollStage}'` : `stage '${stage}' does not allow open enrollment`;
  return forbidden(
    `Client '${client}' may not place node '${client}' in stage '${stage}': ${why}. Register the node with ${stage}'s stage validator (npm run chef:validator -- --stage ${stage}, or Admin → Stages), or let a user with rights on '${stage}' move it there.`,
  );
}

/** A signed node client (not the validator): the only sender this check judges. */
function nodeClient(actor: Actor): ClientActor | null {
  return actor.kind === 'client' && !actor.validator ? actor : null;
}

/**
 * The door-level check of a client naming stage `named` (a policy read's group, a run report's policy_group). For
 * a signed non-validator client: its node in stage S (actor.stage, loaded with the actor from Node.groupId) → only
 * S; its node in no stage (or no node yet) → a known stage only by the enrollment rule (an unknown name passes: it
 * places nothing). Passes for users, the validator, and `named === null` (a message naming no stage). The node
 * save applies the same rule inside its write (chef-nodes.ts), where naming no stage is a move too.
 */
export async function assertStageClaim(actor: Actor, named: string | null, door: StageClaimDoor, client: Tx = db()): Promise<void> {
  const c = nodeClient(actor);
  if (!c || named === null) return;
  if (c.stage !== null) {
    if (named !== c.stage) throw stageMismatch(c.name, c.stage, named, door);
    return;
  }
  const stage = await client.policyGroup.findUnique({ where: { name: named }, select: { name: true, openEnrollment: true } });
  if (stage && !mayEnroll(c.enrollStage, stage)) throw enrollmentRefused(c.name, c.enrollStage, stage.name);
}

/**
 * The node save's rule for a client (called by chef-nodes.ts's one write, with the stage the node is in and the
 * stage it names, resolved): in stage S it may name only S (none or an unknown name is a move out of S); in no
 * stage it may enter a known stage by the enrollment rule, or stay in none.
 */
export function assertClientPlacement(c: ClientActor, node: string, from: string | null, to: { name: string; openEnrollment: boolean } | null, reported: string | null): void {
  if (from !== null) {
    if (to?.name !== from) throw stageMismatch(node, from, to?.name ?? reported, 'node save');
    return;
  }
  if (to && !mayEnroll(c.enrollStage, to)) throw enrollmentRefused(node, c.enrollStage, to.name);
}

/**
 * Issue 41 (finding 6): a home client named like a node acts as that node, so creating it, renaming a client to
 * it, or writing its keys is a right on the node's stage: `node.report` there (a node in no known stage:
 * administrators), org admins included. Nothing when no node has the name. `verb` words the refusal.
 */
export async function assertNodeClientRights(tx: Tx, actor: Actor, name: string, verb: string): Promise<void> {
  if (actor.kind !== 'user') return;
  const node = await tx.node.findUnique({ where: { name }, select: { group: { select: { name: true } } } });
  if (!node) return;
  const stage = node.group?.name ?? null;
  if (can(actor, 'node.report', { node: name, stage })) return;
  // A stage the user may not view is not named (no stage oracle).
  const where = !stage ? 'in no known stage: only administrators may' : can(actor, 'stage.view', { stage }) ? `in stage '${stage}': only users who may report nodes there (promote) may` : 'in a stage you may not report nodes in';
  throw forbidden(`You may not ${verb}: a client named like node '${name}' acts as that node, and the node is ${where}.`);
}

/** Issue 41: Admin → Stages' enrollment card: each stage the user may view, its open enrollment, and its stage validator. */
export async function enrollmentForAdmin(access: Access) {
  const [stages, validators] = await Promise.all([
    db().policyGroup.findMany({ orderBy: [{ position: 'asc' }, { name: 'asc' }], select: { name: true, openEnrollment: true } }),
    db().chefClient.findMany({ where: { orgId: HOME_ORG_ID, validator: true, enrollStage: { not: null } }, select: { name: true, enrollStage: true, createdAt: true, lastSeenAt: true } }),
  ]);
  const byStage = new Map(validators.map((v) => [v.enrollStage!, v]));
  return {
    canValidators: can(access, 'admin.users'),
    stages: stages
      .filter((s) => can(access, 'stage.view', { stage: s.name }))
      .map((s) => {
        const v = byStage.get(s.name);
        return { name: s.name, openEnrollment: s.openEnrollment, canManage: can(access, 'stage.manage', { stage: s.name }), validator: v ? { name: v.name, createdAt: v.createdAt.toISOString(), lastSeenAt: v.lastSeenAt?.toISOString() ?? null } : null };
      }),
  };
}

/** Issue 41: the stages a user may move node `node` (now in `current`) to: node.report on both, in stage order. */
export async function moveTargets(access: Access, node: string, current: string | null): Promise<string[]> {
  if (!can(access, 'node.report', { node, stage: current })) return [];
  const stages = await db().policyGroup.findMany({ orderBy: [{ position: 'asc' }, { name: 'asc' }], select: { name: true } });
  return stages.map((s) => s.name).filter((s) => s !== current && can(access, 'node.report', { node, stage: s }));
}
