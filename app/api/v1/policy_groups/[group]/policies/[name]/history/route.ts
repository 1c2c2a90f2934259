import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { historyRoute } from '@/lib/api/contracts/stages';
import { assertViewable } from '@/lib/auth/permissions';
import { pointerHistory } from '@/lib/services/stages';

export const dynamic = 'force-dynamic';

/** Every pointer change of a policy in a stage, newest first, under the contract's (snake_case) names. */
export const GET = apiRoute(historyRoute, async (_req, { access, params }) => {
  assertViewable(access, params.group, `Cannot load policy group ${params.group}`);
  const history = (await pointerHistory(params.group, params.name)).map((h) => ({
    id: h.id,
    at: h.at,
    kind: h.kind,
    from_revision_id: h.fromRevisionId,
    to_revision_id: h.toRevisionId,
    actor: h.actor,
    reason: h.reason,
    convergence: h.convergence && { nodes: h.convergence.nodes, converged: h.convergence.converged, last_converged_at: h.convergence.lastConvergedAt },
  }));
  return NextResponse.json({ history });
});
