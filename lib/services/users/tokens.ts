import { z } from 'zod';
import type { Db } from '@/lib/db/client';
import { db } from '@/lib/db/client';
import { assertCan, type Access } from '@/lib/auth/permissions';
import { generateToken } from '@/lib/auth/tokens';
import { notFound } from '@/lib/errors';
import { audit } from '@/lib/services/funnel';

/** The input's one definition: the action and the CLI parse with it at their edge; the function takes its output. */
export const ZCreateApiTokenInput = z.object({
  userEmail: z.string().trim().toLowerCase().email('must be an email address'),
  name: z.string().trim().min(1, 'is required').max(100, 'is at most 100 characters'),
  expiresInDays: z.number().int().min(1).max(3650).nullable().optional(),
});
export type CreateApiTokenInput = z.output<typeof ZCreateApiTokenInput>;

/**
 * Creates an API token for a user. `access` null means the operator's CLI
 * (`npm run token:create`), which has shell access to the database anyway;
 * otherwise a user may create tokens for themselves, admins for anyone.
 */
export async function createApiToken(access: Access | null, input: CreateApiTokenInput, client: Db = db()) {
  return client.$transaction(async (tx) => {
    const user = await tx.user.findUnique({ where: { email: input.userEmail }, select: { id: true, email: true, active: true } });
    if (!user || !user.active) throw notFound(`No active user '${input.userEmail}'`);
    if (access) assertCan(access, 'token.manage', { userId: user.id });
    const { token, prefix, secretHash } = generateToken();
    const expiresAt = input.expiresInDays ? new Date(Date.now() + input.expiresInDays * 86_400_000) : null;
    const row = await tx.apiToken.create({ data: { userId: user.id, name: input.name, prefix, secretHash, expiresAt }, select: { id: true } });
    await audit(tx, access ?? { kind: 'system', userId: user.id, email: `cli:${user.email}` }, {
      action: 'token.create',
      targetType: 'token',
      target: `${user.email}/${input.name}`,
      after: { id: row.id, prefix, expiresAt },
    });
    return { id: row.id, token, prefix, expiresAt };
  });
}
