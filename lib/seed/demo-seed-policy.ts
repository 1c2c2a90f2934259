import { db, type Db } from '@/lib/db/client';
import { verifyPassword } from '@/lib/auth/password';
import { DEMO_PASSWORD, DEMO_USERS } from './demo-data';

/**
 * When the demo organisation may be seeded into an empty database (issue 17,
 * item 11). A mistyped DATABASE_URL must not become a fresh console with a
 * known admin password, so:
 * - SEED_DEMO=true: seed; SEED_DEMO=false: never;
 * - otherwise only the default local database on a non-production start,
 *   and never a DATABASE_URL someone set explicitly.
 */
export function demoSeedDecision(env: Record<string, string | undefined> = process.env): { seed: boolean; reason: string } {
  if (env.SEED_DEMO === 'true') return { seed: true, reason: 'SEED_DEMO=true' };
  if (env.SEED_DEMO === 'false') return { seed: false, reason: 'SEED_DEMO=false' };
  if (env.DATABASE_URL) return { seed: false, reason: 'DATABASE_URL is set explicitly (add SEED_DEMO=true to seed the demo into it)' };
  if (env.NODE_ENV === 'production') return { seed: false, reason: 'NODE_ENV=production (add SEED_DEMO=true to seed the demo anyway)' };
  return { seed: true, reason: 'first run on the default local database (SEED_DEMO=false keeps it empty)' };
}

/** True while the demo admin can still sign in with the published demo password. */
export async function demoAdminActive(client: Db): Promise<boolean> {
  const admin = await client.user.findUnique({ where: { email: DEMO_USERS[0].email }, select: { active: true, passwordHash: true } });
  return !!admin?.active && (await verifyPassword(admin.passwordHash, DEMO_PASSWORD));
}

export const DEMO_ADMIN_WARNING = `The demo admin ${DEMO_USERS[0].email} is active with the published demo password on a production server. Deactivate it or reset its password now (Admin → Users).`;

/** For the admin pages: the warning to show, on a production server whose demo admin still works. */
export async function demoAdminWarning(client: Db = db(), env: Record<string, string | undefined> = process.env): Promise<string | null> {
  return env.NODE_ENV === 'production' && (await demoAdminActive(client)) ? DEMO_ADMIN_WARNING : null;
}
