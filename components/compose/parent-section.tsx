'use client';

import { toast } from 'sonner';
import { dateTime, shortId } from '@/lib/format';
import type { ComposeOptions } from '@/lib/types/compose';
import type { ComposeDraft } from './draft';

/**
 * The parent policy: its name (an existing policy or a new one), and either a
 * new parent (run list, cookbook locks, attributes) or an existing revision,
 * whose includes can be re-resolved (re-lock).
 */
export function ParentSection({ options, draft, set, error }: { options: ComposeOptions; draft: ComposeDraft; set: (patch: Partial<ComposeDraft>) => void; error: string | null }) {
  const info = options.policies.find((p) => p.name === draft.policy);
  const relockable = draft.parentMode === 'revision' ? info?.revisions.find((r) => r.revisionId === draft.parentRevision)?.includes : null;
  return (
    <section className="card space-y-3 p-4" aria-labelledby="parent-h">
      <h2 id="parent-h" className="font-semibold">
        Parent policy
      </h2>
      <label className="block text-xs font-medium text-slate-600">
        Policy (an existing one, or a new name)
        <input aria-label="Policy" className="input mt-1" list="compose-policy-names" value={draft.policy} onChange={(e) => set({ policy: e.target.value.trim() })} required />
        <datalist id="compose-policy-names">
          {options.policies.map((p) => (
            <option key={p.name} value={p.name} />
          ))}
        </datalist>
        {draft.policy && !info && <span className="mt-1 block text-slate-600">New policy: saving creates it, owned by your team.</span>}
      </label>
      <div className="flex gap-4 text-sm" role="radiogroup" aria-label="Parent">
        <label className="flex items-center gap-1">
          <input type="radio" checked={draft.parentMode === 'new'} onChange={() => set({ parentMode: 'new' })} /> Start new
        </label>
        <label className="flex items-center gap-1">
          <input type="radio" checked={draft.parentMode === 'revision'} onChange={() => set({ parentMode: 'revision' })} /> From an existing revision
        </label>
      </div>
      {draft.parentMode === 'revision' ? (
        <div className="space-y-2">
          <select aria-label="Parent revision" className="input" value={draft.parentRevision} onChange={(e) => set({ parentRevision: e.target.value })}>
            <option value="">Choose a revision…</option>
            {info?.revisions.map((r) => (
              <option key={r.revisionId} value={r.revisionId}>
                {shortId(r.revisionId, 12)} · {r.origin} · {dateTime(r.createdAt)}
              </option>
            ))}
          </select>
          {relockable && (
            <button type="button" className="btn" onClick={() => set({ includes: relockable })} data-testid="relock">
              Re-lock: re-resolve its includes ({relockable.map((i) => i.name).join(', ')})
            </button>
          )}
        </div>
      ) : (
        <>
          <label className="block text-xs font-medium text-slate-600">
            Run list (one per line; shorthand like nginx or nginx::repo is fine)
            <textarea aria-label="Run list" className="input mono mt-1 h-20" value={draft.runList} onChange={(e) => set({ runList: e.target.value })} />
          </label>
          <label className="block text-xs font-medium text-slate-600">
            Cookbook locks (JSON){' '}
            <input
              type="file"
              accept=".json"
              aria-label="Load cookbook locks from a lock file"
              className="ml-2 text-xs"
              onChange={async (e) => {
                const f = e.target.files?.[0];
                if (!f) return;
                try {
                  const lock = JSON.parse(await f.text());
                  set({ cookbooks: JSON.stringify(lock.cookbook_locks ?? {}, null, 2), ...(!draft.runList && Array.isArray(lock.run_list) ? { runList: lock.run_list.join('\n') } : {}) });
                } catch {
                  toast.error('That file is not a JSON lock');
                }
              }}
            />
            <textarea aria-label="Cookbook locks" className="input mono mt-1 h-28" value={draft.cookbooks} onChange={(e) => set({ cookbooks: e.target.value })} />
          </label>
          <label className="block text-xs font-medium text-slate-600">
            Default attributes (JSON)
            <textarea aria-label="Default attributes" className="input mono mt-1 h-20" value={draft.defaults} onChange={(e) => set({ defaults: e.target.value })} />
          </label>
          <label className="block text-xs font-medium text-slate-600">
            Override attributes (JSON)
            <textarea aria-label="Override attributes" className="input mono mt-1 h-16" value={draft.overrides} onChange={(e) => set({ overrides: e.target.value })} />
          </label>
        </>
      )}
      {error && <p className="text-sm text-red-700" role="alert">{error}</p>}
    </section>
  );
}
