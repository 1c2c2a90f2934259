import { z } from 'zod';
import { db } from '@/lib/db/client';
import { assertCan, type Access } from '@/lib/auth/permissions';
import { NAME_PATTERN } from '@/lib/domain';
import { notFound } from '@/lib/errors';
import { audit } from './internal/audit';
import { parseInput } from './internal/parse';

const name = z.string().regex(NAME_PATTERN, "may contain only letters, digits, '.', '_', ':' and '-' (1 to 255)");
export const ZReportNodeInput = z
  .object({
    name,
    policy_group: name,
    policy_name: name,
    revision_id: name.optional(),
    platform: z.string().max(100).optional(),
    platform_version: z.string().max(100).optional(),
    platform_family: z.string().max(100).optional(),
    os: z.string().max(100).optional(),
  })
  .strict();

/**
 * PUT /nodes/:name — registers a node or records a check-in. Needs the
 * `node.report` permission on the node's stage. Check-ins are frequent and
 * not audited (the node row keeps the last one); moving a node to another
 * stage or policy is.
 */
export async function reportNode(access: Access, raw: unknown): Promise<{ status: 200 | 201 }> {
  const n = parseInput(ZReportNodeInput, raw);
  return db().$transaction(async (tx) => {
    const group = await tx.policyGroup.findUnique({ where: { name: n.policy_group }, select: { id: true } });
    if (!group) throw notFound(`Cannot find policy group '${n.policy_group}'`);
    assertCan(access, 'node.report', { stage: n.policy_group });
    const policy = await tx.policy.findUnique({ where: { name: n.policy_name }, select: { id: true } });
    if (!policy) throw notFound(`Cannot find policy '${n.policy_name}'`);
    const existing = await tx.node.findUnique({ where: { name: n.name }, select: { id: true, groupId: true, policyId: true } });
    const data = {
      groupId: group.id,
      policyId: policy.id,
      revisionApplied: n.revision_id ?? null,
      platform: n.platform ?? null,
      platformVersion: n.platform_version ?? null,
      platformFamily: n.platform_family ?? null,
      os: n.os ?? null,
      lastCheckIn: new Date(),
    };
    if (existing) {
      await tx.node.update({ where: { id: existing.id }, data });
      if (existing.groupId !== group.id || existing.policyId !== policy.id) {
        await audit(tx, access, { action: 'node.move', targetType: 'node', target: n.name, groupName: n.policy_group, policyName: n.policy_name });
      }
      return { status: 200 };
    }
    await tx.node.create({ data: { name: n.name, ...data } });
    await audit(tx, access, { action: 'node.register', targetType: 'node', target: n.name, groupName: n.policy_group, policyName: n.policy_name });
    return { status: 201 };
  });
}
