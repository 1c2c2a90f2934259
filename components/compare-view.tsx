'use client';

import dynamic from 'next/dynamic';
import Link from 'next/link';
import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { useCallback, useEffect, useState, type ReactNode } from 'react';
import type { Comparison } from '@/lib/types/compare';
import type { CookbookChange } from '@/lib/domain';
import { shortId } from '@/lib/format';
import { RelativeTime } from './relative-time';
import { VirtualRows } from './virtual-rows';
import { PromoteDialog, type PromoteTarget } from './promote-dialog';
import { TakeoverWarning } from './takeover-warning';

const TextDiff = dynamic(() => import('./text-diff'), { ssr: false, loading: () => <p className="p-4 text-slate-600">Loading text diff…</p> });

const KIND_STYLE: Record<CookbookChange['kind'], string> = {
  added: 'bg-emerald-50 text-emerald-700',
  removed: 'bg-red-50 text-red-700',
  upgraded: 'bg-sky-50 text-sky-700',
  downgraded: 'bg-orange-50 text-orange-700',
  content_changed: 'bg-red-100 text-red-800 ring-1 ring-red-300',
  source_changed: 'bg-slate-100 text-slate-700',
};

function cookbookBadge(c: CookbookChange) {
  const label =
    c.kind === 'upgraded' || c.kind === 'downgraded' ? `${c.kind} · ${c.level}` : c.kind === 'content_changed' ? 'content changed, same version' : c.kind.replace('_', ' ');
  const major = c.level === 'major' ? ' ring-1 ring-amber-400 font-semibold' : '';
  return <span className={`badge ${KIND_STYLE[c.kind]}${major}`}>{label}</span>;
}

const fmt = (v: unknown) => (v === undefined ? '—' : JSON.stringify(v));

/** j / k move between changes; Enter follows nothing, it only focuses. */
function useChangeNavigation() {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement;
      if (e.metaKey || e.ctrlKey || e.altKey || t.closest('input, textarea, select, [contenteditable]')) return;
      if (e.key !== 'j' && e.key !== 'k') return;
      const rows = [...document.querySelectorAll<HTMLElement>('[data-change]')];
      if (!rows.length) return;
      const current = rows.indexOf(document.activeElement as HTMLElement);
      const next = e.key === 'j' ? Math.min(rows.length - 1, current + 1) : Math.max(0, current < 0 ? 0 : current - 1);
      rows[next].focus();
      rows[next].scrollIntoView({ block: 'nearest' });
      e.preventDefault();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
}

function Section({ title, count, children, id }: { title: string; count: number; children: ReactNode; id: string }) {
  return (
    <section className="card" aria-labelledby={id}>
      <h2 id={id} className="flex items-center gap-2 border-b border-slate-100 px-4 py-2.5 font-semibold">
        {title} <span className="badge bg-slate-100 text-slate-600">{count}</span>
      </h2>
      {count === 0 ? <p className="px-4 py-3 text-slate-600">No changes.</p> : children}
    </section>
  );
}

const rowClass = 'grid items-center gap-3 border-b border-slate-100 px-4 text-sm outline-none focus:bg-indigo-50 focus:ring-2 focus:ring-inset focus:ring-indigo-400';

/** `canPromote`: both sides are stages and the viewer may promote into `to` (the server checks again). */
export function CompareView({ c, canPromote = false, canManage = false, changeHeader }: { c: Comparison; canPromote?: boolean; canManage?: boolean; changeHeader?: { before: string; after: string } }) {
  useChangeNavigation();
  const [promoting, setPromoting] = useState<PromoteTarget | null>(null);
  const target = (cookbook?: string): PromoteTarget => ({ policy: c.policy, from: c.from.stage!, to: c.to.stage!, expectedRevisionId: c.to.revisionId, cookbook, canManage });
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const view = params.get('view') === 'unified' ? 'unified' : 'split';
  const showText = params.get('text') === '1';
  const query = params.toString();
  const deepLink = query ? `${pathname}?${query}` : pathname;
  const setParam = useCallback(
    (key: string, value: string | null) => {
      const next = new URLSearchParams(params.toString());
      if (value === null) next.delete(key);
      else next.set(key, value);
      const q = next.toString();
      router.replace(q ? `${pathname}?${q}` : pathname, { scroll: false });
    },
    [params, pathname, router],
  );
  const d = c.diff;
  const s = d.summary;
  const cbCols = { gridTemplateColumns: canPromote ? 'minmax(8rem,1.2fr) minmax(10rem,1.3fr) 1fr 1fr 9rem' : 'minmax(8rem,1.2fr) minmax(10rem,1.3fr) 1fr 1fr' };
  const atCols = { gridTemplateColumns: '5rem minmax(10rem,2fr) 1fr 1fr 5rem' };

  return (
    <div className="space-y-4" data-testid="compare-view">
      <div className="card flex flex-wrap items-center gap-x-6 gap-y-2 p-4">
        {changeHeader ? (
          // Issue 29: a change reads before → after (what the stage ran → what it would run), not incoming → target.
          <>
            <div data-testid="change-before">
              <div className="text-xs uppercase text-slate-600">Before</div>
              <div className="font-semibold">{changeHeader.before}</div>
              <div className="mono text-slate-600" title={c.to.revisionId}>
                {shortId(c.to.revisionId, 12)} · <RelativeTime iso={c.to.createdAt} />
              </div>
            </div>
            <div aria-hidden className="text-xl text-slate-300">
              →
            </div>
            <div data-testid="change-after">
              <div className="text-xs uppercase text-slate-600">After</div>
              <div className="font-semibold">{changeHeader.after}</div>
              <div className="mono text-slate-600" title={c.from.revisionId}>
                {shortId(c.from.revisionId, 12)} · <RelativeTime iso={c.from.createdAt} />
              </div>
            </div>
          </>
        ) : (
          <>
        <div>
          <div className="text-xs uppercase text-slate-600">From</div>
          <div className="font-semibold">{c.from.label}</div>
          <div className="mono text-slate-600" title={c.from.revisionId}>
            {shortId(c.from.revisionId, 12)} · <RelativeTime iso={c.from.createdAt} />
          </div>
        </div>
        <div aria-hidden className="text-xl text-slate-300">
          →
        </div>
        <div>
          <div className="text-xs uppercase text-slate-600">To</div>
          <div className="font-semibold">{c.to.label}</div>
          <div className="mono text-slate-600" title={c.to.revisionId}>
            {shortId(c.to.revisionId, 12)} · <RelativeTime iso={c.to.createdAt} />
          </div>
        </div>
          </>
        )}
        <div className="flex flex-wrap gap-1.5" data-testid="diff-summary">
          {d.identical ? (
            <span className="badge bg-emerald-50 text-emerald-700 text-sm">Identical: both sides are the same revision</span>
          ) : s.total === 0 ? (
            <span className="badge bg-emerald-50 text-emerald-700 text-sm">Same content: only the revision id differs</span>
          ) : (
            <>
              {(['upgraded', 'downgraded', 'added', 'removed', 'content_changed', 'source_changed'] as const).map(
                (k) =>
                  s.cookbooks[k] > 0 && (
                    <span key={k} className={`badge ${KIND_STYLE[k]}`}>
                      {s.cookbooks[k]} {k.replace('_', ' ')}
                      {k === 'upgraded' && s.cookbooks.major > 0 ? ` (${s.cookbooks.major} major)` : ''}
                    </span>
                  ),
              )}
              {s.runList.added + s.runList.removed + s.runList.moved > 0 && (
                <span className="badge bg-slate-100 text-slate-700">{s.runList.added + s.runList.removed + s.runList.moved} run-list changes</span>
              )}
              {s.attributes.added + s.attributes.removed + s.attributes.changed > 0 && (
                <span className="badge bg-slate-100 text-slate-700">{s.attributes.added + s.attributes.removed + s.attributes.changed} attribute changes</span>
              )}
              {s.includedPolicies > 0 && <span className="badge bg-violet-50 text-violet-700">{s.includedPolicies} include changes</span>}
            </>
          )}
        </div>
        <div className="ml-auto flex items-center gap-2">
          {canPromote && !d.identical && (
            <button type="button" className="btn btn-primary" onClick={() => setPromoting(target())} data-testid="compare-promote">
              Promote {c.from.label} → {c.to.label}
            </button>
          )}
        </div>
      </div>
      {c.takeovers.length > 0 && <TakeoverWarning takeovers={c.takeovers} />}
      <p className="text-xs text-slate-600">
        Read as a promotion: what <b>{c.to.label}</b> would change if it took the revision in <b>{c.from.label}</b>. Keyboard: <kbd className="rounded border px-1">j</kbd> / <kbd className="rounded border px-1">k</kbd> move between changes.
      </p>

      <Section title="Cookbooks" count={d.cookbooks.length} id="cookbooks">
        <VirtualRows
          items={d.cookbooks}
          label="Cookbook changes"
          height={Math.min(480, d.cookbooks.length * 34)}
          header={
            <div role="row" aria-rowindex={1} className={`${rowClass} bg-slate-50 py-1.5 text-xs font-semibold uppercase text-slate-600`} style={cbCols}>
              <span role="columnheader">Cookbook</span>
              <span role="columnheader">Change</span>
              <span role="columnheader">Now in {c.to.label}</span>
              <span role="columnheader">Incoming from {c.from.label}</span>
              {canPromote && (
                <span role="columnheader">
                  <span className="sr-only">Action</span>
                </span>
              )}
            </div>
          }
          render={(cb, _i, rowIndex) => (
            <div role="row" aria-rowindex={rowIndex} tabIndex={-1} data-change="cookbook" data-cookbook={cb.name} className={`${rowClass} h-full`} style={cbCols}>
              <span role="cell" className="font-medium">{cb.name}</span>
              <span role="cell">{cookbookBadge(cb)}</span>
              <span role="cell" className="mono">{cb.from ? `${cb.from.version} (${shortId(cb.from.identifier, 8)})` : '—'}</span>
              <span role="cell" className="mono">
                {cb.to ? `${cb.to.version} (${shortId(cb.to.identifier, 8)})` : '—'}
                {cb.sourceFields && <span className="ml-1 text-slate-600">{cb.sourceFields.join(', ')}</span>}
                {cb.from && cb.to && cb.from.identifier !== cb.to.identifier && (
                  <Link
                    className="ml-2 font-sans text-xs font-medium text-indigo-700 hover:underline"
                    href={`/artifacts/${encodeURIComponent(cb.name)}/diff?from=${encodeURIComponent(cb.from.identifier)}&to=${encodeURIComponent(cb.to.identifier)}`}
                    data-testid="artifact-diff-link"
                  >
                    files<span className="sr-only"> changed in {cb.name}</span>
                  </Link>
                )}
              </span>
              {canPromote &&
                (cb.kind === 'removed' ? (
                  <span role="cell" />
                ) : (
                  <span role="cell">
                    <button type="button" className="text-left text-xs font-medium text-indigo-700 hover:underline" onClick={() => setPromoting(target(cb.name))} data-testid="promote-cookbook">
                      Promote only this<span className="sr-only"> ({cb.name})</span>
                    </button>
                  </span>
                ))}
            </div>
          )}
        />
      </Section>

      <Section title="Run list" count={d.runList.length + d.namedRunLists.length} id="run-list">
        <ul className="divide-y divide-slate-100">
          {d.runList.map((r, i) => (
            <li key={i} tabIndex={-1} data-change="run-list" className={`${rowClass} py-1.5`} style={{ gridTemplateColumns: '6rem 1fr' }}>
              <span className={`badge ${r.kind === 'added' ? 'bg-emerald-50 text-emerald-700' : r.kind === 'removed' ? 'bg-red-50 text-red-700' : 'bg-amber-50 text-amber-700'}`}>{r.kind}</span>
              <span className="mono">
                {r.item}
                {r.kind === 'moved' && <span className="ml-2 text-slate-600">position {r.from! + 1} → {r.to! + 1}</span>}
              </span>
            </li>
          ))}
          {d.namedRunLists.map((n) => (
            <li key={n.name} tabIndex={-1} data-change="named-run-list" className={`${rowClass} py-1.5`} style={{ gridTemplateColumns: '6rem 1fr' }}>
              <span className="badge bg-slate-100 text-slate-700">{n.kind}</span>
              <span>
                named run list <b>{n.name}</b>: {n.changes.map((x) => `${x.kind} ${x.item}`).join('; ')}
              </span>
            </li>
          ))}
        </ul>
      </Section>

      <Section title="Attributes" count={d.attributes.length} id="attributes">
        <VirtualRows
          items={d.attributes}
          label="Attribute changes"
          height={Math.min(480, d.attributes.length * 34)}
          header={
            <div role="row" aria-rowindex={1} className={`${rowClass} bg-slate-50 py-1.5 text-xs font-semibold uppercase text-slate-600`} style={atCols}>
              <span role="columnheader">Change</span>
              <span role="columnheader">Path</span>
              <span role="columnheader">Now</span>
              <span role="columnheader">Incoming</span>
              <span role="columnheader">Level</span>
            </div>
          }
          render={(a, _i, rowIndex) => (
            <div role="row" aria-rowindex={rowIndex} tabIndex={-1} data-change="attribute" data-path={a.pathText} className={`${rowClass} h-full`} style={atCols}>
              <span role="cell" className={`badge ${a.kind === 'added' ? 'bg-emerald-50 text-emerald-700' : a.kind === 'removed' ? 'bg-red-50 text-red-700' : 'bg-sky-50 text-sky-700'}`}>{a.kind}</span>
              <span role="cell" className="mono truncate" title={a.pathText}>
                {a.pathText}
              </span>
              <span role="cell" className="mono truncate text-red-700" title={fmt(a.from)}>
                {fmt(a.from)}
              </span>
              <span role="cell" className="mono truncate text-emerald-800" title={fmt(a.to)}>
                {fmt(a.to)}
              </span>
              <span role="cell" className="text-xs text-slate-600">{a.precedence}</span>
            </div>
          )}
        />
      </Section>

      <Section title="Included policies and dependencies" count={d.includedPolicies.length + d.solutionDependencies.length} id="includes">
        <ul>
          {d.includedPolicies.map((i) => (
            <li key={`i-${i.key}`} tabIndex={-1} data-change="include" className={`${rowClass} py-1.5`} style={{ gridTemplateColumns: '6rem 1fr' }}>
              <span className="badge bg-violet-50 text-violet-700">{i.kind}</span>
              <span>
                include <b>{i.key}</b> {i.from && <span className="mono">{shortId(i.from.revision_id)}</span>} {i.from && i.to && '→'} {i.to && <span className="mono">{shortId(i.to.revision_id)}</span>}
              </span>
            </li>
          ))}
          {d.solutionDependencies.map((i) => (
            <li key={`d-${i.key}`} tabIndex={-1} data-change="dependency" className={`${rowClass} py-1.5`} style={{ gridTemplateColumns: '6rem 1fr' }}>
              <span className="badge bg-slate-100 text-slate-700">{i.kind}</span>
              <span className="mono">
                {i.key}: {fmt(i.from)} → {fmt(i.to)}
              </span>
            </li>
          ))}
        </ul>
      </Section>

      <section className="card" aria-labelledby="text-diff">
        <div className="flex flex-wrap items-center gap-2 border-b border-slate-100 px-4 py-2.5">
          <h2 id="text-diff" className="font-semibold">
            Text diff
          </h2>
          <span className="text-xs text-slate-600">canonical JSON, keys sorted, unchanged regions folded</span>
          <div className="ml-auto flex items-center gap-2">
            {showText && (
              <div role="group" aria-label="Diff layout" className="flex overflow-hidden rounded-md border border-slate-300">
                {(['split', 'unified'] as const).map((v) => (
                  <button
                    key={v}
                    type="button"
                    aria-pressed={view === v}
                    onClick={() => setParam('view', v === 'split' ? null : 'unified')}
                    className={`px-2.5 py-1 text-xs font-medium ${view === v ? 'bg-slate-800 text-white' : 'bg-white text-slate-700 hover:bg-slate-50'}`}
                  >
                    {v === 'split' ? 'Split' : 'Unified'}
                  </button>
                ))}
              </div>
            )}
            <button type="button" className="btn" onClick={() => setParam('text', showText ? null : '1')} aria-expanded={showText}>
              {showText ? 'Hide text diff' : 'Show text diff'}
            </button>
          </div>
        </div>
        {showText && (
          <div className="overflow-x-auto" data-testid="text-diff" data-view={view}>
            {c.currentText === c.incomingText ? (
              <p className="px-4 py-3 text-slate-600">The two documents are identical.</p>
            ) : (
              <TextDiff from={c.currentText} to={c.incomingText} split={view === 'split'} leftTitle={`${c.to.label} (now)`} rightTitle={`${c.from.label} (incoming)`} />
            )}
          </div>
        )}
      </section>
      {promoting && <PromoteDialog target={promoting} onClose={() => setPromoting(null)} />}
      <p className="text-xs text-slate-600">
        Deep link to this view:{' '}
        {/* Issue 29: no stray "?" when the view has no query (the request page's diff). */}
        <Link className="underline" href={deepLink} data-testid="deep-link">
          {deepLink}
        </Link>
      </p>
    </div>
  );
}
