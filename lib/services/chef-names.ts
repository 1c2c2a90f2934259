/**
 * Chef actor names (issue 23): users and clients of every organization share one name space (ChefName), and an
 * organization's validator is named after it. Below chef-clients.ts and organizations.ts, which both use them.
 */
import type { Tx } from '@/lib/db/client';
import { conflict } from '@/lib/errors';

/** Reserves a Chef actor name for a user or a client; 409 when a user or client already has it. */
export async function claimChefName(tx: Tx, name: string, kind: 'user' | 'client', message: string) {
  const taken = await tx.chefName.findUnique({ where: { name }, select: { name: true } });
  if (taken) throw conflict(message);
  try {
    await tx.chefName.create({ data: { name, kind } });
  } catch (e) {
    if ((e as { code?: string }).code === 'P2002') throw conflict(message);
    throw e;
  }
}

/** The organization's validator client name, as Chef names it. */
export function validatorName(org: string): string {
  return `${org}-validator`;
}
