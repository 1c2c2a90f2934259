'use client';

import { useRouter } from 'next/navigation';
import { useQuery } from '@tanstack/react-query';
import { memo, useCallback, useMemo, useRef, useState, type MouseEvent, type SyntheticEvent } from 'react';
import type { RingRolloutDto } from '@/lib/types/rings';
import type { BoardData } from '@/lib/types/board';
import { shortId } from '@/lib/format';
import { RelativeTime } from './relative-time';
import { CellGuards, FreezeBanners, StageGuardBadges } from './board-guards';
import { BulkPromoteDialog } from './bulk-promote-dialog';
import { PromoteDialog, type PromoteTarget } from './promote-dialog';
import { CellRolloutHealth, useRolloutHealth, type RolloutHealthMap } from './rollout-health';
import { cellNodesHref } from './nodes-href';
import { RingCell, useOpenRings } from './rings/ring-cell';
import { policyAnchor, useBoardWindow } from './board-window';

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
  // Read once here and handed to each row (a query observer per cell cost thousands on a large board).
  const health = useRolloutHealth();
  const rings = useOpenRings();
  const navigation = useBoardNavigation();

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

  // Above a hundred rows only those near the viewport are rendered (a 300-policy board was ≈ 46,000 elements to lay out).
  const names = useMemo(() => rows.map((p) => p.name), [rows]);
  const body = useRef<HTMLTableSectionElement>(null);
  const { windowed, segments, reveal, bodyProps } = useBoardWindow(names, body);

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
            reveal(rows[0].name, 'promote');
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
      {windowed && (
        <p className="text-xs text-slate-600" data-testid="board-windowed">
          Showing {rows.length} policies; rows are drawn as you scroll, so the browser&apos;s find in page only sees those near the screen — use the search box to find a policy.
        </p>
      )}
      {data.guards && <FreezeBanners stages={data.guards.stages} />}
      {/* Focusable so the table can be scrolled sideways by keyboard on narrow screens. */}
      <div className="card overflow-x-auto" tabIndex={0} role="region" aria-label="Stage board">
        <table className="table" data-testid="stage-board" aria-rowcount={windowed ? rows.length + 1 : undefined} {...navigation}>
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
          <tbody ref={body} {...bodyProps}>
            {rows.length === 0 && (
              <tr>
                <td colSpan={data.stages.length + 1} className="py-8 text-center text-slate-600">
                  No policy matches these filters.
                </td>
              </tr>
            )}
            {segments.map((s) =>
              'gap' in s ? (
                <tr key={s.key} aria-hidden="true" style={{ height: s.gap }}>
                  <td colSpan={data.stages.length + 1} className="!p-0" />
                </tr>
              ) : (
                <BoardRow
                  key={rows[s.row].name}
                  p={rows[s.row]}
                  rowIndex={windowed ? s.row + 2 : undefined}
                  stages={data.stages}
                  generatedAt={data.generatedAt}
                  guards={data.guards}
                  health={health}
                  rings={rings}
                  firstPromotable={firstPromotable}
                  onPromote={setPromoting}
                />
              ),
            )}
          </tbody>
        </table>
      </div>
      {promoting && <PromoteDialog target={promoting} onClose={() => setPromoting(null)} />}
      {bulk && <BulkPromoteDialog board={data} from={bulk.from} to={bulk.to} onClose={() => setBulk(null)} />}
    </div>
  );
}

type BoardStage = BoardData['stages'][number];
type BoardPolicy = BoardData['policies'][number];
interface BoardRowProps {
  p: BoardPolicy;
  /** aria-rowindex when the board is windowed (the header is row 1). */
  rowIndex: number | undefined;
  stages: BoardStage[];
  generatedAt: string;
  guards: BoardData['guards'];
  health: RolloutHealthMap | undefined;
  rings: RingRolloutDto[] | undefined;
  firstPromotable: BoardStage | null;
  onPromote: (target: PromoteTarget) => void;
}

/**
 * One policy's row. Memoised (React Query shares unchanged parts of a refreshed board, so an unchanged row keeps its
 * props): filtering, a refresh or opening a dialog re-renders only the rows that changed, not every cell. Its links
 * are plain anchors, navigated client-side by the table's one click listener (useBoardNavigation).
 */
const BoardRow = memo(function BoardRow({ p, rowIndex, stages, generatedAt, guards, health, rings, firstPromotable, onPromote }: BoardRowProps) {
  return (
    <tr data-policy={p.name} id={policyAnchor(p.name)} aria-rowindex={rowIndex}>
      <th scope="row" className="!bg-white !text-sm !normal-case !tracking-normal !text-slate-900">
        <a href={`/policies/${encodeURIComponent(p.name)}`} className="font-medium text-indigo-700 hover:underline">
          {p.name}
        </a>
        <div className="text-xs font-normal text-slate-600">{p.team ?? 'no owner'}</div>
        {firstPromotable && p.latestRevisionId && !Object.values(p.cells).some((c) => c?.revisionId === p.latestRevisionId) && (
          <button
            type="button"
            className="mt-1 text-left text-xs font-medium text-indigo-700 hover:underline"
            data-testid="run-newest"
            onClick={() =>
              onPromote({ policy: p.name, from: `rev:${p.latestRevisionId}`, to: firstPromotable.name, expectedRevisionId: p.cells[firstPromotable.name]?.revisionId ?? null, canManage: firstPromotable.canManage })
            }
          >
            Run newest upload {shortId(p.latestRevisionId)} in {firstPromotable.name}
          </button>
        )}
      </th>
      {stages.map((s, i) => {
        const c = p.cells[s.name];
        const next = stages[i + 1];
        const nextCell = next ? p.cells[next.name] : undefined;
        return (
          <td key={s.name} data-stage={s.name} className={c?.differsFromPrevious ? 'bg-amber-50/60' : ''}>
            {c ? (
              <div className="space-y-1">
                <div className="flex items-center gap-1.5">
                  <a
                    href={`/policies/${encodeURIComponent(p.name)}/revisions/${encodeURIComponent(c.revisionId)}`}
                    className="mono text-slate-800 hover:underline"
                    title={c.revisionId}
                  >
                    {shortId(c.revisionId)}
                  </a>
                  {c.verified && (
                    <span className="badge bg-emerald-50 text-emerald-700" title="revision_id matches chef-cli's computed id">
                      ✓ verified
                    </span>
                  )}
                </div>
                <div className="text-xs text-slate-600">
                  <RelativeTime iso={c.since} now={generatedAt} /> ·{' '}
                  <a href={cellNodesHref(p.name, s.name)} className="hover:underline" data-testid="cell-nodes-link">
                    {c.nodesOnRevision}/{c.nodes} nodes on it<span className="sr-only"> (the nodes of {p.name} in {s.name})</span>
                  </a>
                </div>
                <CellGuards policy={p.name} stage={s.name} revisionId={c.revisionId} guards={guards} />
                {!!c.olderDependents && (
                  <a
                    href={`/policies/${encodeURIComponent(p.name)}?stage=${encodeURIComponent(s.name)}#dependents`}
                    className="badge bg-amber-50 text-amber-800 underline-offset-2 hover:underline"
                    data-testid="older-dependents"
                  >
                    {c.olderDependents} dependent{c.olderDependents === 1 ? '' : 's'} carr{c.olderDependents === 1 ? 'ies' : 'y'} an older {p.name}
                    <span className="sr-only"> in {s.name}</span>
                  </a>
                )}
                <CellRolloutHealth policy={p.name} stage={s.name} h={health?.[`${s.name}/${p.name}`]} />
                <RingCell policy={p.name} stage={s.name} rings={rings} />
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
                        onClick={() => onPromote({ policy: p.name, from: s.name, to: next.name, expectedRevisionId: nextCell?.revisionId ?? null, canManage: next.canManage })}
                      >
                        Promote → {next.name}
                      </button>
                    )}
                    <a
                      href={`/compare?policy=${encodeURIComponent(p.name)}&from=${encodeURIComponent(s.name)}&to=${encodeURIComponent(next.name)}`}
                      className="text-slate-600 hover:underline"
                      data-testid="compare-link"
                    >
                      Compare with {next.name}
                    </a>
                  </div>
                )}
                <a href={`/history?policy=${encodeURIComponent(p.name)}&stage=${encodeURIComponent(s.name)}`} className="text-xs text-slate-600 underline-offset-2 hover:underline">
                  history<span className="sr-only"> of {p.name} in {s.name}</span>
                </a>
              </div>
            ) : (
              <>
                <span className="text-xs text-slate-600">not in {s.name}</span>
                <CellGuards policy={p.name} stage={s.name} revisionId={null} guards={guards} />
              </>
            )}
          </td>
        );
      })}
    </tr>
  );
}, sameRow);

/** Equal props, comparing the rollout health of this row's cells only (a refresh changes the map when any cell changes). */
function sameRow(a: BoardRowProps, b: BoardRowProps): boolean {
  if (a.p !== b.p || a.rowIndex !== b.rowIndex || a.stages !== b.stages || a.generatedAt !== b.generatedAt || a.guards !== b.guards || a.rings !== b.rings || a.firstPromotable !== b.firstPromotable || a.onPromote !== b.onPromote) return false;
  if (a.health === b.health) return true;
  return a.stages.every((s) => a.health?.[`${s.name}/${a.p.name}`] === b.health?.[`${s.name}/${b.p.name}`]);
}

/**
 * The board's links are plain anchors (a next/link each would be thousands of components to hydrate on a large
 * board); one listener on the table navigates them client-side as next/link would (a plain left click on a local
 * link), and prefetches a link's page when the pointer or the focus reaches it.
 */
function useBoardNavigation() {
  const router = useRouter();
  const prefetched = useRef(new Set<string>());
  const localLink = (e: { target: EventTarget | null; currentTarget: Element }): string | null => {
    const a = e.target instanceof Element ? e.target.closest('a') : null;
    if (!a || !e.currentTarget.contains(a) || a.target || a.hasAttribute('download')) return null;
    const href = a.getAttribute('href');
    return href && href.startsWith('/') && !href.startsWith('//') ? href : null;
  };
  const onClick = useCallback(
    (e: MouseEvent<HTMLElement>) => {
      if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      const href = localLink(e);
      if (!href) return;
      e.preventDefault();
      router.push(href);
    },
    [router],
  );
  const prefetch = useCallback(
    (e: SyntheticEvent<HTMLElement>) => {
      const href = localLink(e);
      if (!href || prefetched.current.has(href)) return;
      prefetched.current.add(href);
      router.prefetch(href);
    },
    [router],
  );
  return { onClick, onMouseOver: prefetch, onFocus: prefetch };
}
