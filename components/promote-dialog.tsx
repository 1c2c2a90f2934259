'use client';

import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { toast } from 'sonner';
import { isActionError, runAction } from '@/lib/actions/client';
import { promoteCookbookAction } from '@/lib/actions/promotion/promote-cookbook-action';
import { promotePolicyAction } from '@/lib/actions/promotion/promote-policy-action';
import type { ActionServerError } from '@/lib/actions/safe-action';
import type { LockDiff } from '@/lib/domain';
import { shortId } from '@/lib/format';
import { Modal } from './modal';
import { TakeoverWarning } from './takeover-warning';
import type { ResourceTakeover } from '@/lib/domain/resource-map';

export interface PromoteTarget {
  policy: string;
  from: string;
  to: string;
  /** What the user sees in `to` now (null: the policy is not there yet). */
  expectedRevisionId: string | null;
  /** Promote only this cookbook (a derived revision) instead of the whole policy. */
  cookbook?: string;
}

async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url, { cache: 'no-store' });
  const body = await res.json();
  if (!res.ok) throw new Error(body?.error?.[0] ?? `Request failed (${res.status})`);
  return body as T;
}

type NodeRow = { name: string; stale: boolean };

/** The promotion dialog: what changes, who is affected, the dependency check, a reason, one confirm. */
export function PromoteDialog({ target, onClose }: { target: PromoteTarget; onClose: () => void }) {
  const { policy, from, to, cookbook } = target;
  const router = useRouter();
  const queryClient = useQueryClient();
  const [reason, setReason] = useState('');
  const q = (s: string) => encodeURIComponent(s);

  const diff = useQuery({ queryKey: ['diff', policy, from, to], queryFn: () => getJson<LockDiff & { takeovers: ResourceTakeover[] }>(`/api/v1/diff?policy=${q(policy)}&from=${q(from)}&to=${q(to)}`), retry: false });
  const nodes = useQuery({ queryKey: ['nodes', to, policy], queryFn: () => getJson<{ nodes: NodeRow[] }>(`/api/v1/nodes?group=${q(to)}&policy=${q(policy)}`) });
  const check = useQuery({
    queryKey: ['cookbook-check', policy, cookbook, from, to, target.expectedRevisionId],
    enabled: !!cookbook,
    retry: false,
    queryFn: () => runAction(promoteCookbookAction, { policy, cookbook: cookbook!, from, to, expectedRevisionId: target.expectedRevisionId, dryRun: true }),
  });

  const mutation = useMutation({
    mutationFn: async () =>
      cookbook
        ? runAction(promoteCookbookAction, { policy, cookbook, from, to, expectedRevisionId: target.expectedRevisionId, reason: reason || undefined })
        : runAction(promotePolicyAction, { policy, from, to, expectedRevisionId: target.expectedRevisionId, reason: reason || undefined }),
    onSuccess: async (r) => {
      await queryClient.invalidateQueries({ queryKey: ['board'] });
      router.refresh();
      onClose();
      const auditId = (r as { auditId: string | null }).auditId;
      toast.success(cookbook ? `Promoted ${cookbook} into ${to}: new revision ${shortId((r as { revisionId: string }).revisionId)}` : `Promoted ${policy} to ${to}`, {
        description: auditId ? <Link href={`/audit?focus=${auditId}`}>View the audit entry</Link> : 'Nothing changed: the stage already ran this revision.',
      });
    },
  });
  const error = mutation.error as ActionServerError | null;
  const stale = isActionError(error) && error.code === 'conflict';
  const checkError = check.error as ActionServerError | null;
  const nodeList = nodes.data?.nodes ?? [];
  const s = diff.data?.summary;
  const blocked = !!cookbook && (check.isPending || !!checkError || check.data?.noop);

  return (
    <Modal title={cookbook ? `Promote cookbook ${cookbook}: ${from} → ${to}` : `Promote ${policy}: ${from} → ${to}`} onClose={onClose} wide>
      <div className="space-y-4" data-testid="promote-dialog">
        <section aria-label="What changes">
          <h3 className="mb-1 text-xs font-semibold uppercase text-slate-500">What changes in {to}</h3>
          {diff.isPending && <p className="text-slate-500">Computing the diff…</p>}
          {diff.error && <p className="text-red-700">{(diff.error as Error).message}</p>}
          {s && (
            <p>
              {diff.data!.identical ? (
                'Nothing: both stages run the same revision.'
              ) : (
                <>
                  {s.cookbooks.upgraded} upgraded ({s.cookbooks.major} major), {s.cookbooks.downgraded} downgraded, {s.cookbooks.added} added, {s.cookbooks.removed} removed,{' '}
                  {s.cookbooks.content_changed} changed without a version bump; {s.runList.added + s.runList.removed + s.runList.moved} run-list and{' '}
                  {s.attributes.added + s.attributes.removed + s.attributes.changed} attribute changes.{' '}
                  <Link className="text-indigo-700 underline" href={`/compare?policy=${q(policy)}&from=${q(from)}&to=${q(to)}`}>
                    Full diff
                  </Link>
                </>
              )}
            </p>
          )}
        </section>
        {diff.data && diff.data.takeovers.length > 0 && <TakeoverWarning takeovers={diff.data.takeovers} />}
        <section aria-label="Blast radius">
          <h3 className="mb-1 text-xs font-semibold uppercase text-slate-500">Blast radius</h3>
          <p data-testid="blast-radius">
            {nodes.isPending ? 'Counting nodes…' : `${nodeList.length} node${nodeList.length === 1 ? '' : 's'} in ${to} run ${policy}; ${nodeList.filter((n) => n.stale).length} of them are not yet on the current revision.`}
          </p>
        </section>
        {cookbook && (
          <section aria-label="Dependency check">
            <h3 className="mb-1 text-xs font-semibold uppercase text-slate-500">Dependency check</h3>
            {check.isPending && <p className="text-slate-500">Checking every constraint…</p>}
            {check.data && check.data.noop && <p className="text-slate-600">{to} already has exactly this {cookbook}: nothing to promote.</p>}
            {check.data && !check.data.noop && (
              <p className="text-emerald-700" data-testid="dependency-ok">
                ✓ All constraints hold: {cookbook} {check.data.before?.version ?? '(absent)'} → {check.data.after.version}. A new revision {shortId(check.data.revisionId)} will be derived from {to}&apos;s lock.
              </p>
            )}
            {checkError && (
              <div className="rounded-md border border-red-200 bg-red-50 p-3 text-red-800" role="alert">
                <p className="font-medium">{checkError.message}</p>
                <ul className="mt-1 list-disc pl-5">
                  {checkError.errors.map((e, i) => (
                    <li key={i}>{e.message}</li>
                  ))}
                </ul>
              </div>
            )}
          </section>
        )}
        <div>
          <label htmlFor="promote-reason" className="mb-1 block text-xs font-semibold uppercase text-slate-500">
            Reason (optional, kept in the audit log)
          </label>
          <textarea id="promote-reason" className="input h-16" value={reason} onChange={(e) => setReason(e.target.value)} maxLength={1000} placeholder="e.g. CHG-1234: nginx security fix" />
        </div>
        {error && (
          <div role="alert" className="rounded-md border border-red-200 bg-red-50 p-3 text-red-800">
            <p className="font-medium">{stale ? `${to} changed since you looked.` : 'The promotion was refused.'}</p>
            <p>{error.message}</p>
            {stale && (
              <button
                type="button"
                className="btn mt-2"
                onClick={async () => {
                  await queryClient.invalidateQueries({ queryKey: ['board'] });
                  router.refresh();
                  onClose();
                }}
              >
                Refresh and review again
              </button>
            )}
          </div>
        )}
        <div className="flex justify-end gap-2">
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button type="button" className="btn btn-primary" disabled={mutation.isPending || blocked || diff.data?.identical} onClick={() => mutation.mutate()}>
            {mutation.isPending ? 'Promoting…' : cookbook ? `Promote ${cookbook} to ${to}` : `Promote to ${to}`}
          </button>
        </div>
      </div>
    </Modal>
  );
}
