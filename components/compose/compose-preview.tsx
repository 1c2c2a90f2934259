'use client';

import type { ApiError } from '@/lib/api/client';
import type { MergeConflict } from '@/lib/domain';
import { shortId } from '@/lib/format';
import type { ComposeResult } from '@/lib/services/compose-policy';
import type { ComposeOptions } from '@/lib/types/compose';
import { ComposedLock } from './composed-lock';

const fmt = (v: unknown) => JSON.stringify(v);

/**
 * The preview column: whether the merge holds (every conflict with both
 * sources, or the request's errors by pointer), the save controls, and the
 * composed lock with where each part came from.
 */
export function ComposePreview(props: {
  policy: string;
  data: ComposeResult | undefined;
  err: ApiError | null;
  updating: boolean;
  canSave: boolean;
  canSubmit: boolean;
  saving: boolean;
  stages: ComposeOptions['stages'];
  saveGroup: string;
  setSaveGroup: (stage: string) => void;
  onSave: () => void;
}) {
  const { policy, data, err, updating, canSave, canSubmit, saving, stages, saveGroup, setSaveGroup, onSave } = props;
  const conflicts = err?.body.conflicts as MergeConflict[] | undefined;
  return (
    <section className="space-y-4" aria-labelledby="preview-h" data-testid="compose-preview">
      <div className="card flex flex-wrap items-center gap-3 p-4">
        <h2 id="preview-h" className="font-semibold">
          Preview {updating && <span className="text-xs font-normal text-slate-600">updating…</span>}
        </h2>
        {data && !err && <span className="badge bg-emerald-50 text-emerald-700">no conflicts · revision {shortId(data.lock.revision_id)}</span>}
        {canSave ? (
          <div className="ml-auto flex items-center gap-2">
            <select aria-label="Point a stage at it" className="input w-44" value={saveGroup} onChange={(e) => setSaveGroup(e.target.value)}>
              <option value="">Save only</option>
              {stages
                .filter((s) => s.canPromote)
                .map((s) => (
                  <option key={s.name} value={s.name}>
                    Save and run in {s.name}
                  </option>
                ))}
            </select>
            <button type="button" className="btn btn-primary" disabled={!canSubmit || saving} onClick={onSave}>
              {saving ? 'Saving…' : 'Save as new revision'}
            </button>
          </div>
        ) : (
          <span className="ml-auto text-xs text-slate-600">Only {policy}&apos;s owner team can save compositions.</span>
        )}
      </div>

      {err && (
        <div role="alert" className="card border-red-200 bg-red-50 p-4 text-red-900" data-testid="conflicts">
          {conflicts ? (
            <>
              <p className="font-semibold">
                {conflicts.length} conflict{conflicts.length === 1 ? '' : 's'}: the merge cannot be saved until each is resolved.
              </p>
              <ul className="mt-2 space-y-2">
                {conflicts.map((c, i) => (
                  <li key={i} className="rounded bg-white/60 p-2" data-conflict-kind={c.kind}>
                    {c.kind === 'attribute' ? (
                      <>
                        Attribute <code className="mono">{c.path}</code> ({c.precedence}) is set to <code className="mono">{fmt(c.values?.[0])}</code> by <b>{c.sources[0]}</b> and to{' '}
                        <code className="mono">{fmt(c.values?.[1])}</code> by <b>{c.sources[1]}</b>.
                      </>
                    ) : (
                      c.message
                    )}
                  </li>
                ))}
              </ul>
            </>
          ) : (
            <>
              <p className="font-semibold">{err.message}</p>
              <ul className="mt-1 list-disc pl-5 text-sm">
                {err.errors.map((e, i) => (
                  <li key={i}>
                    <code className="mono">{e.path}</code> {e.message}
                  </li>
                ))}
              </ul>
            </>
          )}
        </div>
      )}
      {data && !err && <ComposedLock policy={policy} data={data} />}
    </section>
  );
}
