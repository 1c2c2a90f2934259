import { z } from 'zod';
import { can, type Access } from '@/lib/auth/permissions';
import { forbidden, notFound } from '@/lib/errors';
import { ZOrderDirectivesInput } from '@/lib/validation/previews';
import { audit, transaction } from '@/lib/services/funnel';

/** The input's one definition: the action parses with it at its edge; the function takes its output (owner checks need the database). */
export const ZSaveScenarioInput = z.object({
  id: z.string().optional(),
  name: z.string().trim().min(1, 'is required').max(100, 'is at most 100 characters'),
  shared: z.boolean().default(false),
  note: z.string().max(2000).default(''),
  input: ZOrderDirectivesInput,
  selectedRules: z.array(z.string()).max(1000).default([]),
});

/** Saves an ordering scenario: new ones belong to the actor; only the owner (or an admin) may overwrite one. */
export async function saveScenario(access: Access, input: z.output<typeof ZSaveScenarioInput>) {
  return transaction(async (tx) => {
    const data = { name: input.name, shared: input.shared, note: input.note, input: JSON.stringify(input.input), selectedRules: JSON.stringify(input.selectedRules), updatedAt: new Date() };
    if (input.id) {
      const existing = await tx.orderingScenario.findUnique({ where: { id: input.id }, select: { ownerId: true } });
      if (!existing) throw notFound('That scenario no longer exists');
      if (!can(access, 'scenario.write', { userId: existing.ownerId ?? undefined })) throw forbidden('Only the owner of a scenario may change it; save a copy under another name.');
      const row = await tx.orderingScenario.update({ where: { id: input.id }, data, select: { id: true, name: true } });
      await audit(tx, access, { action: 'scenario.update', targetType: 'scenario', target: row.name });
      return row;
    }
    const clash = await tx.orderingScenario.findFirst({ where: { ownerId: access.userId, name: input.name }, select: { id: true } });
    const row = clash
      ? await tx.orderingScenario.update({ where: { id: clash.id }, data, select: { id: true, name: true } })
      : await tx.orderingScenario.create({ data: { ...data, ownerId: access.userId, ownerEmail: access.email }, select: { id: true, name: true } });
    await audit(tx, access, { action: clash ? 'scenario.update' : 'scenario.create', targetType: 'scenario', target: row.name });
    return row;
  });
}

/** Deletes a scenario (owner or admin). */
export async function deleteScenario(access: Access, id: string) {
  return transaction(async (tx) => {
    const existing = await tx.orderingScenario.findUnique({ where: { id }, select: { ownerId: true, name: true } });
    if (!existing) throw notFound('That scenario no longer exists');
    if (!can(access, 'scenario.write', { userId: existing.ownerId ?? undefined })) throw forbidden('Only the owner of a scenario may delete it.');
    await tx.orderingScenario.delete({ where: { id } });
    await audit(tx, access, { action: 'scenario.delete', targetType: 'scenario', target: existing.name });
    return { id };
  });
}
