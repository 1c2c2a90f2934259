import type { OrgSettingsDto } from '@/lib/types/org-settings';
import { db, type Tx } from '../../db/client';

/** The organization's settings (the defaults when they were never changed). */
export async function orgSettings(tx: Tx = db()): Promise<OrgSettingsDto> {
  const row = await tx.orgSetting.findUnique({ where: { id: 'org' }, select: { stageIsolation: true, updatedAt: true, updatedBy: true } });
  // A row only the demo seed wrote (its demo password hash, issue 43) was never changed by anyone: no "changed" time.
  const changed = !!row?.updatedBy;
  return { stage_isolation: row?.stageIsolation ?? false, updated_at: changed ? row!.updatedAt.toISOString() : null, updated_by: row?.updatedBy ?? null };
}

/** Issue 43: a demo user the sign-in page may name, with what they can do in the demo. */
export interface DemoLogin {
  email: string;
  can: string;
}

/**
 * The demo users the sign-in page names: only when the demo was seeded into this database (the seed keeps the
 * hash it gave them), and only those still active whose password is still exactly the seeded one (a changed
 * password or a deactivated user drops out; none left, no hint). No password is verified here: the stored hash
 * is compared as it is, so an anonymous page costs no hashing. A database without the demo never shows it.
 */
export async function demoLogins(describe: (email: string) => string, tx: Tx = db()): Promise<DemoLogin[]> {
  const row = await tx.orgSetting.findUnique({ where: { id: 'org' }, select: { demoPasswordHash: true } });
  if (!row?.demoPasswordHash) return [];
  const users = await tx.user.findMany({ where: { passwordHash: row.demoPasswordHash, active: true }, select: { email: true } });
  return users.map((u) => ({ email: u.email, can: describe(u.email) }));
}
