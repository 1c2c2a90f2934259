import { db } from '../client';
import { tokenRow, type UserAccessRow } from './chef-read-path';
import { HOME_ORG_ID } from '@/lib/domain/organizations';

const TOUCH_INTERVAL_MS = 60_000;

/** The user behind a live token (not revoked, not expired, user active), as the access row the read path reads (membership of `orgId`); or null. */
export async function tokenUser(secretHash: string, now = new Date(), orgId: string = HOME_ORG_ID): Promise<UserAccessRow | null> {
  const token = await tokenRow(secretHash, orgId);
  if (!token || (token.expiresAt && token.expiresAt <= now) || !token.user.active) return null;
  await touchToken(token.tokenId, token.lastUsedAt, now);
  return token.user;
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
