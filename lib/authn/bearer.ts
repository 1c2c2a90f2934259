/**
 * A console API token ("Authorization: Bearer …"), on the Chef door and /api/v1 alike. Moved from
 * lib/chef/authn.ts (docs/architecture.md 6.1).
 */
import type { Actor } from '@/lib/auth/permissions';
import { hashToken } from '@/lib/auth/tokens';
import { confirmationRefusal, confirmIdentity } from '@/lib/authn/oidc-refresh';
import { accessOf } from '@/lib/db/queries/access';
import { tokenUser } from '@/lib/db/queries/tokens';
import { HOME_ORG_ID } from '@/lib/domain/organizations';
import { noteActor } from '@/lib/ops/request-context';

export type BearerResult = { ok: true; actor: Actor; protocol: 'bearer' } | { ok: false; status: 401; message: string } | { ok: false; status: 0 };

/** A console API token ("Authorization: Bearer …"); `status: 0` when there is none. */
export async function authenticateBearer(req: { header(name: string): string | null | undefined }, orgId: string = HOME_ORG_ID): Promise<BearerResult> {
  const header = req.header('authorization');
  if (!header) return { ok: false, status: 0 };
  const m = /^Bearer\s+(\S+)$/i.exec(header);
  let access = m ? accessOf(await tokenUser(hashToken(m[1]), new Date(), orgId)) : null;
  if (!access) return { ok: false, status: 401, message: 'Authentication required: the API token is unknown, revoked or expired.' };
  // Issue 45: the tokens of a person who signed in through the identity provider work while the provider confirms them.
  const confirmed = await confirmIdentity(access.userId);
  if (!confirmed.ok) return { ok: false, status: 401, message: confirmationRefusal(confirmed.reason) };
  if (confirmed.refreshed) access = accessOf(await tokenUser(hashToken(m![1]), new Date(), orgId));
  if (!access) return { ok: false, status: 401, message: 'Authentication required: the API token is unknown, revoked or expired.' };
  noteActor(access.userId, 'token', req.header);
  return { ok: true, protocol: 'bearer', actor: { ...access, via: 'token' } };
}
