import 'server-only';
import { cache } from 'react';
import { redirect } from 'next/navigation';
import { getServerSession } from 'next-auth';
import { authOptions } from './options';
import type { Access } from './permissions';
import { loadAccess } from '@/lib/db/queries/access';

/**
 * The signed-in user's access, read from the database once per request; null
 * without a valid session. Fails closed: no request scope or a malformed
 * cookie is no session.
 */
export const currentAccess = cache(async (): Promise<Access | null> => {
  let id: string | undefined;
  try {
    const session = await getServerSession(authOptions);
    id = (session?.user as { id?: string } | undefined)?.id;
  } catch {
    id = undefined;
  }
  return id ? loadAccess(id) : null;
});

/** For pages: the signed-in user's access, or a redirect to /login. */
export async function requireAccess(): Promise<Access> {
  const access = await currentAccess();
  if (!access) redirect('/login');
  return access;
}
