'use client';

import Link from 'next/link';
import { useQuery } from '@tanstack/react-query';
import type { CompareSide } from '@/lib/types/compare';
import type { LockDiff } from '@/lib/domain';
import type { ResourceTakeover } from '@/lib/domain/resource-map';
import { TakeoverWarning } from './takeover-warning';

export type DiffResponse = LockDiff & { takeovers: ResourceTakeover[]; from: Omit<CompareSide, 'lock'>; to: Omit<CompareSide, 'lock'> };
type NodeRow = { name: string; stale: boolean };

export async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url, { cache: 'no-store' });
  const body = await res.json().catch(() => null);
  if (!res.ok) throw new Error(body?.error?.[0] ?? `Request failed (${res.status})`);
  return body as T;
}

const q = encodeURIComponent;

/** `staging` → "staging"; `rev:abc…` → "revision abc…". */
export function sideLabel(spec: string): string {
  return spec.startsWith('rev:') ? `revision ${spec.slice(4, 14)}` : spec;
}

/**
 * What a pointer change would do to `to`: the diff from what runs there now to
 * what arrives from `from` (a stage or `rev:<id>`), takeover warnings and the
 * blast radius. `ready` is true only when both have loaded; a failed request
 * leaves it false and offers a retry, so no dialog can confirm blind.
 */
export function useChangePreview({ policy, from, to, toHasPolicy = true }: { policy: string; from: string; to: string; toHasPolicy?: boolean }) {
  const diff = useQuery({
    queryKey: ['diff', policy, from, to],
    enabled: toHasPolicy,
    retry: false,
    queryFn: () => getJson<DiffResponse>(`/api/v1/diff?policy=${q(policy)}&from=${q(from)}&to=${q(to)}`),
  });
  const nodes = useQuery({ queryKey: ['nodes', to, policy], retry: false, queryFn: () => getJson<{ nodes: NodeRow[] }>(`/api/v1/nodes?group=${q(to)}&policy=${q(policy)}`) });
  const diffReady = !toHasPolicy || diff.isSuccess;
  return {
    diff,
    nodes,
    ready: diffReady && nodes.isSuccess,
    failed: diff.isError || nodes.isError,
    identical: toHasPolicy && !!diff.data?.identical,
    retry: () => {
      if (diff.isError) void diff.refetch();
      if (nodes.isError) void nodes.refetch();
    },
  };
}

export type ChangePreviewState = ReturnType<typeof useChangePreview>;

/** One line that counts a LockDiff's changes; `testId` lets tests read it. */
export function DiffCounts({ d }: { d: LockDiff }) {
  const s = d.summary;
  if (d.identical) return <>Nothing: both sides are the same revision.</>;
  if (s.total === 0) return <>Same content: only the revision id differs.</>;
  const parts: string[] = [];
  const cb = s.cookbooks;
  if (cb.upgraded) parts.push(`${cb.upgraded} upgraded${cb.major ? ` (${cb.major} major)` : ''}`);
  if (cb.downgraded) parts.push(`${cb.downgraded} downgraded`);
  if (cb.added) parts.push(`${cb.added} added`);
  if (cb.removed) parts.push(`${cb.removed} removed`);
  if (cb.content_changed) parts.push(`${cb.content_changed} changed without a version bump`);
  if (cb.source_changed) parts.push(`${cb.source_changed} with a new source`);
  const runList = s.runList.added + s.runList.removed + s.runList.moved + d.namedRunLists.length;
  const attrs = s.attributes.added + s.attributes.removed + s.attributes.changed;
  const tail = [runList && `${runList} run-list change${runList === 1 ? '' : 's'}`, attrs && `${attrs} attribute change${attrs === 1 ? '' : 's'}`, s.includedPolicies && `${s.includedPolicies} include change${s.includedPolicies === 1 ? '' : 's'}`].filter(Boolean);
  const cookbookText = parts.length ? `Cookbooks: ${parts.join(', ')}` : 'No cookbook changes';
  return (
    <>
      {cookbookText}
      {tail.length ? `; ${tail.join(', ')}.` : '.'}
    </>
  );
}

/** The cookbook changes spelled out (name old → new), for short lists such as a single-cookbook promotion. */
export function CookbookChangeList({ d }: { d: LockDiff }) {
  if (d.cookbooks.length === 0 && d.solutionDependencies.length === 0) return null;
  return (
    <ul className="mt-1 list-disc pl-5" data-testid="cookbook-changes">
      {d.cookbooks.map((c) => (
        <li key={c.name}>
          <b>{c.name}</b> {c.from?.version ?? '(absent)'} → {c.to?.version ?? '(removed)'} <span className="text-slate-600">({c.kind.replace('_', ' ')}{c.level ? `, ${c.level}` : ''})</span>
        </li>
      ))}
      {d.solutionDependencies.map((s) => (
        <li key={`dep-${s.key}`}>
          dependency constraint <span className="mono">{s.key}</span>: {s.kind}
        </li>
      ))}
    </ul>
  );
}

/**
 * The preview a promotion, a start or a rollback shows before its confirm
 * button: what changes, takeovers, blast radius. `override` replaces the
 * stage-to-stage diff (a single-cookbook promotion shows its derived lock's diff).
 */
export function ChangePreview({
  preview,
  policy,
  from,
  to,
  override,
  toHasPolicy = true,
}: {
  preview: ChangePreviewState;
  policy: string;
  from: string;
  to: string;
  override?: { diff: LockDiff | null; pending: boolean; note?: string };
  toHasPolicy?: boolean;
}) {
  const { diff, nodes } = preview;
  const d: LockDiff | undefined = override ? (override.diff ?? undefined) : diff.data;
  const pending = override ? override.pending : toHasPolicy && diff.isPending;
  const nodeList = nodes.data?.nodes ?? [];
  const compareHref = `/compare?policy=${q(policy)}&from=${q(from)}&to=${q(to)}`;
  return (
    <>
      <section aria-labelledby="preview-changes">
        <h3 id="preview-changes" className="mb-1 text-xs font-semibold uppercase text-slate-600">
          What changes in {to}
        </h3>
        <div data-testid="diff-preview">
          {!toHasPolicy ? (
            <p>
              {to} does not run {policy} yet: the whole revision is new there.
            </p>
          ) : pending ? (
            <p className="text-slate-600">Computing the diff…</p>
          ) : override && !override.diff ? null : diff.isError && !override ? (
            <div role="alert" className="rounded-md border border-red-200 bg-red-50 p-3 text-red-800">
              <p className="font-medium">The diff could not be computed, so this change cannot be confirmed yet.</p>
              <p>{(diff.error as Error).message}</p>
              <button type="button" className="btn mt-2" onClick={() => diff.refetch()}>
                Retry
              </button>
            </div>
          ) : d ? (
            <>
              {override?.note && <p className="text-slate-700">{override.note}</p>}
              <p>
                <DiffCounts d={d} />{' '}
                {!override && (
                  <Link className="text-indigo-700 underline" href={compareHref}>
                    Full diff
                  </Link>
                )}
              </p>
              {override && <CookbookChangeList d={d} />}
            </>
          ) : null}
        </div>
      </section>
      {!override && diff.data && diff.data.takeovers.length > 0 && <TakeoverWarning takeovers={diff.data.takeovers} />}
      <section aria-labelledby="preview-blast">
        <h3 id="preview-blast" className="mb-1 text-xs font-semibold uppercase text-slate-600">
          Blast radius
        </h3>
        {nodes.isError ? (
          <div role="alert" className="rounded-md border border-red-200 bg-red-50 p-3 text-red-800" data-testid="blast-radius">
            <p>The nodes in {to} could not be counted: {(nodes.error as Error).message}</p>
            <button type="button" className="btn mt-2" onClick={() => nodes.refetch()}>
              Retry
            </button>
          </div>
        ) : (
          <p data-testid="blast-radius">
            {nodes.isPending
              ? 'Counting nodes…'
              : `${nodeList.length} node${nodeList.length === 1 ? '' : 's'} in ${to} run ${policy}; ${nodeList.filter((n) => n.stale).length} of them are not yet on the current revision.`}
          </p>
        )}
      </section>
    </>
  );
}
