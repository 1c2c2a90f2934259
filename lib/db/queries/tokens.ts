import { db } from '../client';

const TOUCH_INTERVAL_MS = 60_000;

/** The user id behind a live token (not revoked, not expired, user active), or null. */
export async function userIdForToken(secretHash: string, now = new Date()): Promise<string | null> {
  const token = await db().apiToken.findUnique({
    where: { secretHash },
    select: { id: true, userId: true, revokedAt: true, expiresAt: true, lastUsedAt: true, user: { select: { active: true } } },
  });
  if (!token || token.revokedAt || (token.expiresAt && token.expiresAt <= now) || !token.user.active) return null;
  await touchToken(token.id, token.lastUsedAt, now);
  return token.userId;
}

/**
 * Records a token's use at most once a minute: a write per read would throttle
 * the node read path. Bookkeeping only: when the write fails (a read-only or
 * busy database), the request goes on (issue 17, item 15); health reports it.
 */
export async function touchToken(id: string, lastUsedAt: Date | null, now: Date): Promise<void> {
  if (!lastUsedAt || now.getTime() - lastUsedAt.getTime() > TOUCH_INTERVAL_MS) {
    try {
      await db().apiToken.update({ where: { id }, data: { lastUsedAt: now } });
    } catch (e) {
      console.warn(`[tokens] could not record lastUsedAt for token ${id}: ${(e as Error).message?.split('\n')[0]}`);
    }
  }
}
