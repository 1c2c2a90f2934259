/**
 * The organization's settings (issue 22/23): "stage isolation", which limits
 * a Chef client to its own stage's nodes, data bags and search results. Admins
 * change them (`org.settings`); every change is audited with before and after.
 * The input is validated at the edge (the route's contract, the action's schema).
 */
import { assertCan, type Access } from '@/lib/auth/permissions';
import { orgSettings } from './settings-queries';
import type { OrgSettingsDto } from '@/lib/types/org-settings';
import type { OrgSettingsInput } from '@/lib/validation/org-settings';
import { audit, transaction } from '@/lib/services/funnel';

export async function updateOrgSettings(access: Access, input: OrgSettingsInput, requestId?: string): Promise<OrgSettingsDto> {
  assertCan(access, 'org.settings');
  return transaction(async (tx) => {
    const before = await orgSettings(tx);
    await tx.orgSetting.upsert({
      where: { id: 'org' },
      create: { id: 'org', stageIsolation: input.stage_isolation, updatedBy: access.email },
      update: { stageIsolation: input.stage_isolation, updatedBy: access.email },
    });
    const after = await orgSettings(tx);
    if (before.stage_isolation !== after.stage_isolation) {
      await audit(tx, access, { action: 'org.settings', targetType: 'organization', target: 'settings', before: { stage_isolation: before.stage_isolation }, after: { stage_isolation: after.stage_isolation }, requestId });
    }
    return after;
  });
}
