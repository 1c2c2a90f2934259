import type { Db } from '@/lib/db/client';
import { db } from '@/lib/db/client';
import { assertCan, type Access } from '@/lib/auth/permissions';
import { hashToken } from '@/lib/auth/tokens';
import { notFound } from '@/lib/errors';
import { audit } from '@/lib/services/funnel';

/**
 * Revokes a token, by id or by the secret itself. `access` null is the
 * operator's CLI; otherwise users revoke their own tokens, admins anyone's.
 */
export async function revokeApiToken(access: Access | null, by: { id: string } | { token: string }, client: Db = db()) {
  return client.$transaction(async (tx) => {
    const where = 'id' in by ? { id: by.id } : { secretHash: hashToken(by.token) };
    const token = await tx.apiToken.findUnique({ where, select: { id: true, name: true, userId: true, revokedAt: true, user: { select: { email: true } } } });
    if (!token) throw notFound('No such API token');
    if (access) assertCan(access, 'token.manage', { userId: token.userId });
    if (token.revokedAt) return { id: token.id, revokedAt: token.revokedAt };
    const revokedAt = new Date();
    await tx.apiToken.update({ where: { id: token.id }, data: { revokedAt } });
    await audit(tx, access ?? { kind: 'system', userId: token.userId, email: `cli:${token.user.email}` }, {
      action: 'token.revoke',
      targetType: 'token',
      target: `${token.user.email}/${token.name}`,
      before: { revokedAt: null },
      after: { revokedAt },
    });
    return { id: token.id, revokedAt };
  });
}
