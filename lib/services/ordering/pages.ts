import type { Access } from '@/lib/auth/permissions';
import type { OrderDirectivesInput } from '@/lib/domain';
import type { ScenarioDto } from '@/lib/types/ordering';
import { db } from '../../db/client';
import { sortedBy } from '../../db/order';

export type { ScenarioDto } from '@/lib/types/ordering';

/** Scenarios the viewer may load: their own and every shared one. */
export async function scenariosFor(access: Access): Promise<ScenarioDto[]> {
  const rows = await db().orderingScenario.findMany({ where: { OR: [{ ownerId: access.userId }, { shared: true }] }, orderBy: { name: 'asc' } }).then(sortedBy((r) => r.name));
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    owner: r.ownerEmail,
    mine: r.ownerId === access.userId,
    shared: r.shared,
    note: r.note,
    input: JSON.parse(r.input) as OrderDirectivesInput,
    selectedRules: JSON.parse(r.selectedRules) as string[],
  }));
}
