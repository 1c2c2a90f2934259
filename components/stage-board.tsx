'use client';

import Link from 'next/link';
import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import type { BoardData } from '@/lib/types/board';
import { shortId } from '@/lib/format';
import { RelativeTime } from './relative-time';
import { CellGuards, FreezeBanners, StageGuardBadges } from './board-guards';
import { BulkPromoteDialog } from './bulk-promote-dialog';
import { PromoteDialog, type PromoteTarget } from './promote-dialog';
import { CellRolloutHealth } from './rollout-health';
import { cellNodesHref } from './nodes-href';
import { RingCell } from './rings/ring-cell';

/** A value in Chef's query language: bare when it holds no special character, quoted otherwise. */

async function fetchBoard(): Promise<BoardData> {
  const res = await fetch('/api/v1/board', { cache: 'no-store' });
  if (!res.ok) throw new Error(`Could not refresh the board (${res.status})`);
  return res.json();
}

export function StageBoard({ initial }: { initial: BoardData }) {
  const { data, isFetching, error } = useQuery({ queryKey: ['board'], queryFn: fetchBoard, initialData: initial, refetchInterval: 15_000 });
  const [q, setQ] = useState('');
  const [team, setTeam] = useState('');
  const [stage, setStage] = useState('');
  const [differs, setDiffers] = useState(false);
  const [promoting, setPromoting] = useState<PromoteTarget | null>(null);
  const [bulk, setBulk] = useState<{ from: string; to: string } | null>(null);

  const rows = useMemo(
    () =>
      data.policies.filter(
        (p) =>
          (!q || p.name.toLowerCase().includes(q.toLowerCase())) &&
          (!team || p.team === team) &&
          (!stage || p.cells[stage]) &&
          (!differs || Object.values(p.cells).some((c) => c?.differsFromPrevious)),
      ),
    [data, q, team, stage, differs],
  );

  // A fresh upload starts in the first stage the user may promote into.
  const firstPromotable = data.stages.find((s) => s.canPromote) ?? null;

  if (data.stages.length === 0) {
    return <p className="card p-8 text-center text-slate-600">You cannot view any stage yet. Ask an admin for access.</p>;
  }

  return (
    <div className="space-y-3">
      <div className="flex flex-wrap items-center gap-2" role="search">
        {/* Issue 29: a keyboard way to a policy's row: type its name, Enter jumps to the first match's promote action (else its link). */}
        <input
          aria-label="Search policies"
          aria-describedby="board-jump-hint"
          placeholder="Search policies… (Enter: jump to the row)"
          className="input max-w-xs"
          value={q}
          onChange={(e) => setQ(e.target.value)}
          onKeyDown={(e) => {
            if (e.key !== 'Enter' || !rows.length) return;
            e.preventDefault();
            const row = document.querySelector<HTMLElement>(`tr[data-policy="${CSS.escape(rows[0].name)}"]`);
            (row?.querySelector<HTMLElement>('[data-testid="promote-button"]') ?? row?.querySelector<HTMLElement>('th a'))?.focus();
          }}
          data-testid="board-search"
        />
        <span id="board-jump-hint" className="sr-only">
          Filters the board as you type; Enter moves to the first matching policy&apos;s promote button.
        </span>
        <select aria-label="Team" className="input w-auto" value={team} onChange={(e) => setTeam(e.target.value)}>
          <option value="">All teams</option>
          {data.teams.map((t) => (
            <option key={t}>{t}</option>
          ))}
        </select>
        <select aria-label="Stage" className="input w-auto" value={stage} onChange={(e) => setStage(e.target.value)}>
          <option value="">In any stage</option>
          {data.stages.map((s) => (
            <option key={s.name} value={s.name}>
              In {s.name}
            </option>
          ))}
        </select>
        <label className="flex items-center gap-1.5 text-slate-600">
          <input type="checkbox" checked={differs} onChange={(e) => setDiffers(e.target.checked)} /> Differs from previous stage
        </label>
        <span className="ml-auto text-xs text-slate-600" aria-live="polite">
          {error ? <span className="text-red-700">{(error as Error).message}</span> : isFetching ? 'Refreshing…' : <>Updated <RelativeTime iso={data.generatedAt} now={data.generatedAt} /></>}
        </span>
      </div>
      {data.guards && <FreezeBanners stages={data.guards.stages} />}
      {/* Focusable so the table can be scrolled sideways by keyboard on narrow screens. */}
      <div className="card overflow-x-auto" tabIndex={0} role="region" aria-label="Stage board">
        <table className="table" data-testid="stage-board">
          <thead>
            <tr>
              <th scope="col" className="w-48">
                Policy
              </th>
              {data.stages.map((s, i) => (
                <th key={s.name} scope="col" title={s.description}>
                  <div className="flex items-center justify-between gap-2">
                    <span>
                      {s.name}
                      <StageGuardBadges stage={s.name} guards={data.guards} />
                    </span>
                    {s.canPromote && i > 0 && (
                      <button
                        type="button"
                        className="rounded px-1.5 py-0.5 text-[11px] font-medium normal-case tracking-normal text-indigo-700 hover:bg-indigo-50"
                        onClick={() => setBulk({ from: data.stages[i - 1].name, to: s.name })}
                        data-testid={`bulk-promote-${s.name}`}
                      >
                        Promote differing from {data.stages[i - 1].name}…
                      </button>
                    )}
                  </div>
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.length === 0 && (
              <tr>
                <td colSpan={data.stages.length + 1} className="py-8 text-center text-slate-600">
                  No policy matches these filters.
                </td>
              </tr>
            )}
            {rows.map((p) => (
              <tr key={p.name} data-policy={p.name}>
                <th scope="row" className="!bg-white !text-sm !normal-case !tracking-normal !text-slate-900">
                  <Link href={`/policies/${encodeURIComponent(p.name)}`} className="font-medium text-indigo-700 hover:underline">
                    {p.name}
                  </Link>
                  <div className="text-xs font-normal text-slate-600">{p.team ?? 'no owner'}</div>
                  {firstPromotable && p.latestRevisionId && !Object.values(p.cells).some((c) => c?.revisionId === p.latestRevisionId) && (
                    <button
                      type="button"
                      className="mt-1 text-left text-xs font-medium text-indigo-700 hover:underline"
                      data-testid="run-newest"
                      onClick={() =>
                        setPromoting({ policy: p.name, from: `rev:${p.latestRevisionId}`, to: firstPromotable.name, expectedRevisionId: p.cells[firstPromotable.name]?.revisionId ?? null, canManage: firstPromotable.canManage })
                      }
                    >
                      Run newest upload {shortId(p.latestRevisionId)} in {firstPromotable.name}
                    </button>
                  )}
                </th>
                {data.stages.map((s, i) => {
                  const c = p.cells[s.name];
                  const next = data.stages[i + 1];
                  const nextCell = next ? p.cells[next.name] : undefined;
                  return (
                    <td key={s.name} data-stage={s.name} className={c?.differsFromPrevious ? 'bg-amber-50/60' : ''}>
                      {c ? (
                        <div className="space-y-1">
                          <div className="flex items-center gap-1.5">
                            <Link
                              href={`/policies/${encodeURIComponent(p.name)}/revisions/${encodeURIComponent(c.revisionId)}`}
                              className="mono text-slate-800 hover:underline"
                              title={c.revisionId}
                            >
                              {shortId(c.revisionId)}
                            </Link>
                            {c.verified && (
                              <span className="badge bg-emerald-50 text-emerald-700" title="revision_id matches chef-cli's computed id">
                                ✓ verified
                              </span>
                            )}
                          </div>
                          <div className="text-xs text-slate-600">
                            <RelativeTime iso={c.since} now={data.generatedAt} /> ·{' '}
                            <Link href={cellNodesHref(p.name, s.name)} className="hover:underline" data-testid="cell-nodes-link">
                              {c.nodesOnRevision}/{c.nodes} nodes on it<span className="sr-only"> (the nodes of {p.name} in {s.name})</span>
                            </Link>
                          </div>
                          <CellGuards policy={p.name} stage={s.name} revisionId={c.revisionId} guards={data.guards} />
                          {!!c.olderDependents && (
                            <Link
                              href={`/policies/${encodeURIComponent(p.name)}?stage=${encodeURIComponent(s.name)}#dependents`}
                              className="badge bg-amber-50 text-amber-800 underline-offset-2 hover:underline"
                              data-testid="older-dependents"
                            >
                              {c.olderDependents} dependent{c.olderDependents === 1 ? '' : 's'} carr{c.olderDependents === 1 ? 'ies' : 'y'} an older {p.name}
                              <span className="sr-only"> in {s.name}</span>
                            </Link>
                          )}
                          <CellRolloutHealth policy={p.name} stage={s.name} />
                          <RingCell policy={p.name} stage={s.name} />
                          {c.differsFromPrevious === true && (
                            <div className="text-xs font-medium text-amber-800" data-testid="differs" data-relation={c.relation ?? undefined}>
                              {c.relation === 'ahead' ? (
                                <>
                                  ahead of {c.comparedWith}: changed without passing through {c.comparedWith}
                                </>
                              ) : c.relation === 'behind' ? (
                                <>
                                  behind {c.comparedWith}: waiting for promotion from {c.comparedWith}
                                </>
                              ) : (
                                <>differs from {c.comparedWith}</>
                              )}{' '}
                              · {c.cookbooksChanged} cookbook{c.cookbooksChanged === 1 ? '' : 's'} differ{c.cookbooksChanged === 1 ? 's' : ''} from {c.comparedWith}
                            </div>
                          )}
                          {c.differsFromPrevious === false && <div className="text-xs text-slate-600">same as {c.comparedWith}</div>}
                          {next && (!nextCell || nextCell.revisionId !== c.revisionId) && (
                            <div className="flex flex-wrap gap-x-2 text-xs">
                              {next.canPromote && (
                                <button
                                  type="button"
                                  className="font-medium text-indigo-700 hover:underline"
                                  data-testid="promote-button"
                                  onClick={() => setPromoting({ policy: p.name, from: s.name, to: next.name, expectedRevisionId: nextCell?.revisionId ?? null, canManage: next.canManage })}
                                >
                                  Promote → {next.name}
                                </button>
                              )}
                              <Link
                                href={`/compare?policy=${encodeURIComponent(p.name)}&from=${encodeURIComponent(s.name)}&to=${encodeURIComponent(next.name)}`}
                                className="text-slate-600 hover:underline"
                                data-testid="compare-link"
                              >
                                Compare with {next.name}
                              </Link>
                            </div>
                          )}
                          <Link href={`/history?policy=${encodeURIComponent(p.name)}&stage=${encodeURIComponent(s.name)}`} className="text-xs text-slate-600 underline-offset-2 hover:underline">
                            history<span className="sr-only"> of {p.name} in {s.name}</span>
                          </Link>
                        </div>
                      ) : (
                        <>
                          <span className="text-xs text-slate-600">not in {s.name}</span>
                          <CellGuards policy={p.name} stage={s.name} revisionId={null} guards={data.guards} />
                        </>
                      )}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {promoting && <PromoteDialog target={promoting} onClose={() => setPromoting(null)} />}
      {bulk && <BulkPromoteDialog board={data} from={bulk.from} to={bulk.to} onClose={() => setBulk(null)} />}
    </div>
  );
}
