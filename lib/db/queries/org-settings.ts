import type { OrgSettingsDto } from '@/lib/types/org-settings';
import { db, type Tx } from '../client';

/** The organization's settings (the defaults when they were never changed). */
export async function orgSettings(tx: Tx = db()): Promise<OrgSettingsDto> {
  const row = await tx.orgSetting.findUnique({ where: { id: 'org' }, select: { stageIsolation: true, updatedAt: true, updatedBy: true } });
  return { stage_isolation: row?.stageIsolation ?? false, updated_at: row?.updatedAt.toISOString() ?? null, updated_by: row?.updatedBy ?? null };
}
