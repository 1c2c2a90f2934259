import type { Metadata } from 'next';
import { requireAccess } from '@/lib/authn/session';
import { loadBoard } from '@/lib/db/queries/board';
import { PageHeader } from '@/components/page-header';
import { StageBoard } from '@/components/stage-board';
import { RolloutHealthProvider, type RolloutHealthMap } from '@/components/rollout-health';
import { rolloutHealth, type StageHealthDto } from '@/lib/services/runs';

export const metadata: Metadata = { title: 'Stages' };
export const dynamic = 'force-dynamic';

/**
 * What the board's cells show of the rollout health (components/rollout-health.tsx CellRolloutHealth): the cells with
 * nodes or a ring, their counts and their top failure. The rest of StageHealthDto stays on the server (the page's
 * payload carried every cell's whole DTO: ≈ 450 KB at 300 policies × 6 stages). Refreshes read the API as before.
 */
function shownHealth(health: Record<string, StageHealthDto>): RolloutHealthMap {
  const out: RolloutHealthMap = {};
  for (const [key, h] of Object.entries(health)) {
    if (h.nodes === 0 && !h.in_ring) continue;
    out[key] = { nodes: h.nodes, in_ring: h.in_ring, converged: h.converged, failed: h.failed, pending: h.pending, missing: h.missing, failures: h.failures.slice(0, 1) };
  }
  return out;
}

export default async function StagesPage() {
  const access = await requireAccess();
  const [board, health] = await Promise.all([loadBoard(access), rolloutHealth(access)]);
  return (
    <>
      <PageHeader title="Stages" description="What runs where: each policy's active revision in every stage, left to right in promotion order." />
      <RolloutHealthProvider initial={shownHealth(health)}>
        <StageBoard initial={board} />
      </RolloutHealthProvider>
    </>
  );
}
