/**
 * Issues 43 and 41: stage verdicts as every reader sees them (the guard through lib/services/funnel/verdict.ts,
 * the board, the journey, the history): one row → DTO mapping.
 */
import type { Tx } from '../client';
import type { StageVerdictDto } from '@/lib/types/verdicts';

export const VERDICT_SELECT = {
  id: true,
  groupName: true,
  policyName: true,
  revisionId: true,
  source: true,
  ringId: true,
  nodes: true,
  failedNodes: true,
  failedResource: true,
  failedCookbook: true,
  evidence: true,
  summary: true,
  createdAt: true,
  overriddenAt: true,
  overriddenByEmail: true,
  overrideReason: true,
} as const;

export type VerdictRow = {
  id: string;
  groupName: string;
  policyName: string;
  revisionId: string;
  source: string;
  ringId: string | null;
  nodes: number;
  failedNodes: number;
  failedResource: string | null;
  failedCookbook: string | null;
  evidence: string;
  summary: string;
  createdAt: Date;
  overriddenAt: Date | null;
  overriddenByEmail: string | null;
  overrideReason: string | null;
};

function names(evidence: string): string[] {
  try {
    const e = JSON.parse(evidence) as { failed_nodes?: unknown };
    return Array.isArray(e.failed_nodes) ? e.failed_nodes.filter((n): n is string => typeof n === 'string').slice(0, 50) : [];
  } catch {
    return [];
  }
}

export function toVerdictDto(r: VerdictRow): StageVerdictDto {
  return {
    id: r.id,
    stage: r.groupName,
    policy: r.policyName,
    revision_id: r.revisionId,
    source: r.source === 'ring' ? 'ring' : 'rollback',
    ring_id: r.ringId,
    url: r.ringId ? `/rings/${encodeURIComponent(r.ringId)}` : `/history?policy=${encodeURIComponent(r.policyName)}&stage=${encodeURIComponent(r.groupName)}`,
    nodes: r.nodes,
    failed_nodes: r.failedNodes,
    failed_resource: r.failedResource,
    failed_cookbook: r.failedCookbook,
    failed_node_names: names(r.evidence),
    summary: r.summary,
    at: r.createdAt.toISOString(),
    overridden: r.overriddenAt ? { at: r.overriddenAt.toISOString(), by: r.overriddenByEmail ?? 'unknown', reason: r.overrideReason ?? '' } : null,
  };
}

/** The verdicts on a revision of a policy that are in force (not overridden), every stage, oldest first. */
export async function verdictsOn(tx: Tx, policyName: string, revisionId: string): Promise<StageVerdictDto[]> {
  const rows = await tx.stageVerdict.findMany({ where: { policyName, revisionId, overriddenAt: null }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], select: VERDICT_SELECT });
  return rows.map(toVerdictDto);
}

/** Every verdict (in force or overridden) of some policies, newest first: the board, the journey, the history. */
export async function verdictsOf(tx: Tx, where: { policies?: string[]; stage?: string; revisionId?: string; inForce?: boolean }): Promise<StageVerdictDto[]> {
  const rows = await tx.stageVerdict.findMany({
    where: {
      ...(where.policies ? { policyName: { in: where.policies } } : {}),
      ...(where.stage ? { groupName: where.stage } : {}),
      ...(where.revisionId ? { revisionId: where.revisionId } : {}),
      ...(where.inForce ? { overriddenAt: null } : {}),
    },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: 1000,
    select: VERDICT_SELECT,
  });
  return rows.map(toVerdictDto);
}

