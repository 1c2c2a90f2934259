/**
 * Chef actor names (issue 23; issue 41: per organization). Users' names are server-wide (a user signs in every
 * organization they belong to); clients' names are unique within their organization (as Chef Server keeps them),
 * so another organization cannot squat the names the home organization's nodes will register with. No client
 * takes a user's name and no user a client's, in any organization: a name that signs says who signs. An
 * organization's validator is named after it. Below chef-clients.ts and organizations.ts, which both use them.
 */
import type { Tx } from '@/lib/db/client';
import { lockChefName } from '@/lib/db/queries/chef-names';
import { conflict } from '@/lib/errors';
import { HOME_ORG_ID } from '@/lib/domain/organizations';

/** The claim key of a user's name ('') or of a client's (its organization's id). */
export function nameScope(kind: 'user' | 'client', orgId: string = HOME_ORG_ID): string {
  return kind === 'user' ? '' : orgId;
}

/**
 * Reserves a Chef actor name for a user (server-wide) or a client (in `orgId`, default the home organization);
 * 409 with `message` when a user has it, a client of the same organization has it, or (for a user) any client has
 * it. Two claims of one name are serialized (lockChefName), and the (scope, name) key settles equal claims.
 */
export async function claimChefName(tx: Tx, name: string, kind: 'user' | 'client', message: string, orgId: string = HOME_ORG_ID) {
  await lockChefName(tx, name);
  const scope = nameScope(kind, orgId);
  const taken = await tx.chefName.findFirst({ where: kind === 'user' ? { name } : { name, scope: { in: ['', scope] } }, select: { name: true } });
  if (taken) throw conflict(message);
  try {
    await tx.chefName.create({ data: { name, kind, scope } });
  } catch (e) {
    if ((e as { code?: string }).code === 'P2002') throw conflict(message);
    throw e;
  }
}

/** Gives a client's name back (deleted or renamed). */
export async function releaseClientName(tx: Tx, name: string, orgId: string = HOME_ORG_ID): Promise<void> {
  await tx.chefName.deleteMany({ where: { name, scope: nameScope('client', orgId) } });
}

/** Whether a user or a client of any organization has this name (a user's claim would be refused). */
export async function chefNameTaken(tx: Tx, name: string): Promise<boolean> {
  return !!(await tx.chefName.findFirst({ where: { name }, select: { name: true } }));
}

/** The organization's validator client name, as Chef names it. */
export function validatorName(org: string): string {
  return `${org}-validator`;
}

/** Issue 41: a stage validator's client name (`npm run chef:validator -- --stage STAGE`). */
export function stageValidatorName(org: string, stage: string): string {
  return `${org}-validator-${stage}`;
}
