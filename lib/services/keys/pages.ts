import { viewableStages, type Access } from '@/lib/auth/permissions';
import { db } from '@/lib/db/client';
import { compareText } from '@/lib/db/order';

/** Issue 43: the Chef tools page's client.rb choices: the stages the reader may view (promotion order), each with the policies it runs. */
export async function connectChoices(access: Access): Promise<{ stage: string; policies: string[] }[]> {
  const groups = await db().policyGroup.findMany({ orderBy: [{ position: 'asc' }, { name: 'asc' }], select: { name: true, policies: { select: { policy: { select: { name: true } } } } } });
  return viewableStages(access, groups).map((g) => ({ stage: g.name, policies: g.policies.map((p) => p.policy.name).sort(compareText) }));
}
