'use client';

import type { ApiError } from '@/lib/api/client';
import type { MergeConflict } from '@/lib/domain';
import { shortId } from '@/lib/format';
import type { ComposeResult } from '@/lib/services/compose';
import type { ComposeOptions } from '@/lib/types/compose';
import { GuardAnswerView, guardAllows, type GuardOverrides } from '../guard-answer';
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
  overrides: GuardOverrides;
  setOverrides: (o: GuardOverrides) => void;
  artifactReason: string;
  setArtifactReason: (r: string) => void;
}) {
  const { policy, data, err, updating, canSave, canSubmit, saving, stages, saveGroup, setSaveGroup, onSave, overrides, setOverrides, artifactReason, setArtifactReason } = props;
  // Issue 29: saving into a stage says, before the click, what the guard will do (the preview's dry run), and the button says it.
  const guard = saveGroup && data && !err && data.guard?.stage === saveGroup ? data.guard : null;
  const guardOk = !saveGroup || (!!guard && guardAllows(guard, overrides) && (!guard.missing_artifacts.length || !!artifactReason.trim()));
  const label = saving ? 'Saving…' : saveGroup ? `${guard ? guard.action : 'Checking'} — Save and run in ${saveGroup}` : 'Save as new revision';
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
            <button type="button" className="btn btn-primary" disabled={!canSubmit || saving || !guardOk} onClick={onSave} data-testid="compose-save">
              {label}
            </button>
          </div>
        ) : (
          <span className="ml-auto text-xs text-slate-600">Only {policy}&apos;s owner team can save compositions.</span>
        )}
      </div>

      {guard && (
        <div className="card space-y-2 p-4" data-testid="compose-guard">
          <GuardAnswerView p={guard} overrides={overrides} onOverrides={setOverrides} />
          {guard.missing_artifacts.length > 0 && guard.outcome !== 'blocked' && (
            <div data-testid="compose-missing-artifacts">
              <p className="text-sm">
                {saveGroup} requires every cookbook on the server; {guard.missing_artifacts.length} of this revision {guard.missing_artifacts.length === 1 ? 'is' : 'are'} missing: {guard.missing_artifacts.join(', ')}.
              </p>
              <label htmlFor="compose-artifact-override" className="mb-1 mt-1 block text-xs font-semibold uppercase text-slate-600">
                Go ahead without them: reason (required, audited)
              </label>
              <textarea id="compose-artifact-override" className="input h-16" value={artifactReason} onChange={(e) => setArtifactReason(e.target.value)} maxLength={1000} />
            </div>
          )}
        </div>
      )}
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
