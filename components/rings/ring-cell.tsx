'use client';

/**
 * Issue 30: a board cell's ringed rollout. The open rings come from
 * /api/v1/rings?open=true, fetched once for the whole board (one query key, read
 * once by the board: useOpenRings), and the board renders <RingCell policy stage rings /> in each cell.
 */
import Link from 'next/link';
import { useQuery } from '@tanstack/react-query';
import { shortId } from '@/lib/format';
import type { RingRolloutDto } from '@/lib/types/rings';

const OPEN_RINGS_KEY = ['rings', 'open'] as const;

async function fetchOpenRings(): Promise<RingRolloutDto[]> {
  const res = await fetch('/api/v1/rings?open=true', { headers: { accept: 'application/json' } });
  if (!res.ok) return [];
  return ((await res.json()) as { rings: RingRolloutDto[] }).rings;
}

export function useOpenRings(): RingRolloutDto[] | undefined {
  return useQuery({ queryKey: OPEN_RINGS_KEY, queryFn: fetchOpenRings, staleTime: 15_000 }).data;
}

export function RingCell({ policy, stage, rings }: { policy: string; stage: string; rings: RingRolloutDto[] | undefined }) {
  const ring = rings?.find((r) => r.stage === stage && r.policy === policy && r.status !== 'superseded');
  if (!ring) return null;
  const h = ring.health;
  const tone = h.failed ? 'border-red-200 bg-red-50 text-red-800' : ring.status === 'paused' ? 'border-slate-200 bg-slate-50 text-slate-700' : 'border-indigo-200 bg-indigo-50 text-indigo-800';
  return (
    <Link href={ring.url} className={`block rounded border px-1.5 py-1 text-xs hover:underline ${tone}`} data-testid="ring-cell" data-ring-status={ring.status}>
      <span className="font-medium">
        {ring.status === 'pending_approval' ? 'ring awaiting approval' : `ring ${ring.percent}%${ring.status === 'paused' ? ' (paused)' : ''}`}
      </span>{' '}
      → <span className="mono">{shortId(ring.to_revision_id)}</span>
      {ring.status !== 'pending_approval' && (
        <span className="block text-[11px]">
          {h.ring_nodes} node{h.ring_nodes === 1 ? '' : 's'} in ring · {h.converged} converged{h.failed ? ` · ${h.failed} failed` : ''}
          {h.pending ? ` · ${h.pending} not yet run` : ''}
        </span>
      )}
    </Link>
  );
}
