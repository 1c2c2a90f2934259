import { db } from '../client';
import type { ChefKeyCandidate } from './chef-read-path';

/** Records that a key (and its client) was used, at most once a minute; a failed write never fails the request. */
export async function touchChefKey(c: ChefKeyCandidate, now = new Date()): Promise<void> {
  if (c.lastUsedAt && now.getTime() - c.lastUsedAt.getTime() < 60_000) return;
  try {
    await db().chefKey.update({ where: { id: c.keyId }, data: { lastUsedAt: now } });
    if (c.clientId) await db().chefClient.update({ where: { id: c.clientId }, data: { lastSeenAt: now } });
  } catch {
    /* bookkeeping only */
  }
}
