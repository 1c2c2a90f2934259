'use client';

import { createContext, useContext, type ReactNode } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { StageHealthDto } from '@/lib/services/runs';
import { cellNodesHref } from './nodes-href';

/**
 * Issue 26: rollout health on the board, per stage × policy, from
 * GET /api/v1/rollout/health (rolloutHealth: a fixed number of SQL statements
 * whatever the number of nodes). The page passes the first answer (only what a
 * cell shows: see CellHealth); the board reads the one React Query entry once,
 * refreshed with the board, and hands each cell its own.
 */
/** What a cell shows of its stage's health (the API's StageHealthDto has more: the board page sends only this, for the cells that show it). */
export type CellHealth = Pick<StageHealthDto, 'nodes' | 'in_ring' | 'converged' | 'failed' | 'pending' | 'missing' | 'failures'>;
export type RolloutHealthMap = Record<string, CellHealth>;

const Initial = createContext<RolloutHealthMap | null>(null);

async function fetchHealth(): Promise<RolloutHealthMap> {
  const res = await fetch('/api/v1/rollout/health', { cache: 'no-store' });
  if (!res.ok) throw new Error(`Could not refresh rollout health (${res.status})`);
  return ((await res.json()) as { health: RolloutHealthMap }).health;
}

export function RolloutHealthProvider({ initial, children }: { initial: RolloutHealthMap; children: ReactNode }) {
  return <Initial.Provider value={initial}>{children}</Initial.Provider>;
}

export function useRolloutHealth(): RolloutHealthMap | undefined {
  const initial = useContext(Initial);
  const { data } = useQuery({ queryKey: ['rollout-health'], queryFn: fetchHealth, initialData: initial ?? undefined, refetchInterval: 15_000, enabled: initial !== null });
  return data;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * One board cell's rollout: converged / failed (top failure by cookbook and resource) / not yet run / missing, of the
 * nodes that should run the stage's revision. Plain links: the board navigates them client-side with one listener
 * (a next/link per link cost thousands of components on a large board).
 */
export function CellRolloutHealth({ policy, stage, h }: { policy: string; stage: string; h: CellHealth | undefined }) {
  if (!h || (h.nodes === 0 && !h.in_ring)) return null;
  const total = Math.max(h.nodes, 1);
  const seg = (n: number, cls: string) => (n > 0 ? <span className={cls} style={{ width: `${(n / total) * 100}%` }} /> : null);
  const top = h.failures[0];
  const inRing = h.in_ring ?? 0;
  const label = `Rollout in ${stage}: ${h.converged} of ${total} nodes converged, ${h.failed} failed, ${h.pending} not yet run, ${h.missing} missing${inRing ? `; ${inRing} of them in a canary ring, counted on the ring's revision` : ''}`;
  return (
    <div className="space-y-0.5 text-xs" data-testid="rollout-health" data-converged={h.converged} data-failed={h.failed} data-pending={h.pending} data-missing={h.missing} data-in-ring={inRing}>
      <div className="flex h-1.5 w-full max-w-[10rem] overflow-hidden rounded bg-slate-100" role="img" aria-label={label} title={label}>
        {seg(h.converged, 'bg-emerald-500')}
        {seg(h.failed, 'bg-red-500')}
        {seg(h.pending, 'bg-slate-300')}
        {seg(h.missing, 'bg-amber-400')}
      </div>
      {/* Issue 43: each count opens the Nodes list of those very nodes (it counts them with the same rule). */}
      <div className="flex flex-wrap gap-x-1.5 text-slate-600">
        <a href={cellNodesHref(policy, stage, 'converged')} className="text-emerald-800 underline decoration-dotted underline-offset-2" data-testid="rollout-converged-link">
          {h.converged} converged<span className="sr-only"> (nodes of {policy} in {stage})</span>
        </a>
        {h.failed > 0 && (
          <span className="font-medium text-red-700">
            ·{' '}
            <a href={cellNodesHref(policy, stage, 'failed')} className="underline underline-offset-2" data-testid="rollout-failed-link">
              {h.failed} failed<span className="sr-only"> (nodes of {policy} in {stage})</span>
            </a>
          </span>
        )}
        {h.pending > 0 && (
          <span>
            ·{' '}
            <a href={cellNodesHref(policy, stage, 'pending')} className="underline decoration-dotted underline-offset-2" data-testid="rollout-pending-link">
              {h.pending} not yet run<span className="sr-only"> (nodes of {policy} in {stage})</span>
            </a>
          </span>
        )}
        {h.missing > 0 && (
          <span className="text-amber-800">
            ·{' '}
            <a href={cellNodesHref(policy, stage, 'missing')} className="underline decoration-dotted underline-offset-2" data-testid="rollout-missing-link">
              {h.missing} missing<span className="sr-only"> (nodes of {policy} in {stage})</span>
            </a>
          </span>
        )}
        {inRing > 0 && (
          <span className="text-indigo-800" title="counted on the ring's revision">
            · {inRing} in the ring
          </span>
        )}
      </div>
      {top && (
        <a
          href={`/history?policy=${encodeURIComponent(policy)}&stage=${encodeURIComponent(stage)}#rollout`}
          className="block truncate text-red-800 hover:underline"
          title={`${top.cookbook ?? 'unknown cookbook'} · ${top.resource ?? 'unknown resource'}`}
          data-testid="rollout-top-failure"
        >
          ✗ {top.cookbook ?? '?'} · {top.resource ?? '?'} ({plural(top.nodes, 'node')})
        </a>
      )}
    </div>
  );
}
