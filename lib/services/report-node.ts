import { z } from 'zod';
import { chefName } from '@/lib/validation/fields';
import { assertCan, can, type Access } from '@/lib/auth/permissions';
import { forbidden, notFound } from '@/lib/errors';
import { requireGroup } from './internal/lookup';
import { audit } from './internal/audit';
import { parseInput } from './internal/parse';
import { transaction } from './internal/retry';
import { indexNode } from './internal/search-index';
import { NODE_SELECT, nodeJson } from './chef-nodes';

const name = chefName();
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
 * `node.report` permission on the node's stage, and on the stage it is in now
 * when it moves (issue 17, item 3). Check-ins are frequent and not audited
 * (the node row keeps the last one); moving a node to another stage or policy
 * is, with where it came from.
 */
export async function reportNode(access: Access, raw: unknown): Promise<{ status: 200 | 201 }> {
  const n = parseInput(ZReportNodeInput, raw);
  return transaction(async (tx) => {
    const group = await requireGroup(tx, n.policy_group, access);
    assertCan(access, 'node.report', { stage: n.policy_group });
    const policy = await tx.policy.findUnique({ where: { name: n.policy_name }, select: { id: true } });
    if (!policy) throw notFound(`Cannot find policy '${n.policy_name}'`);
    const existing = await tx.node.findUnique({ where: { name: n.name }, select: { id: true, groupId: true, policyId: true, group: { select: { name: true } }, policy: { select: { name: true } } } });
    if (existing?.group && existing.groupId !== group.id && !can(access, 'node.report', { stage: existing.group.name })) {
      // The refusal does not name the stage when the caller may not view it: no 200/201 or stage-name oracle.
      throw can(access, 'stage.view', { stage: existing.group.name })
        ? forbidden(`Node '${n.name}' is in stage '${existing.group.name}', where you may not report nodes: moving it needs that right there too.`)
        : forbidden(`You may not report node '${n.name}': a node of that name belongs to a stage you may not report nodes in.`);
    }
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
      const before = await tx.node.findUniqueOrThrow({ where: { id: existing.id }, select: NODE_SELECT });
      const after = await tx.node.update({ where: { id: existing.id }, data, select: NODE_SELECT });
      await indexNode(tx, nodeJson(after), nodeJson(before));
      if (existing.groupId !== group.id || existing.policyId !== policy.id) {
        await audit(tx, access, {
          action: 'node.move',
          targetType: 'node',
          target: n.name,
          groupName: n.policy_group,
          policyName: n.policy_name,
          before: { policy_group: existing.group?.name ?? null, policy_name: existing.policy?.name ?? null },
          after: { policy_group: n.policy_group, policy_name: n.policy_name },
        });
      }
      return { status: 200 };
    }
    const created = await tx.node.create({ data: { name: n.name, ...data }, select: NODE_SELECT });
    await indexNode(tx, nodeJson(created), null);
    await audit(tx, access, { action: 'node.register', targetType: 'node', target: n.name, groupName: n.policy_group, policyName: n.policy_name });
    return { status: 201 };
  });
}
