import { shortId, dateTime } from '@/lib/format';

/** A plain GET form: works without JavaScript and yields a deep-linkable URL. */
export function ComparePicker({ options, policy, from, to }: { options: { policies: string[]; stages: string[]; revisions: { revisionId: string; createdAt: string }[] }; policy?: string; from?: string; to?: string }) {
  const sideOptions = (
    <>
      <optgroup label="Stages">
        {options.stages.map((s) => (
          <option key={s} value={s}>
            {s}
          </option>
        ))}
      </optgroup>
      {options.revisions.length > 0 && (
        <optgroup label="Revisions">
          {options.revisions.map((r) => (
            <option key={r.revisionId} value={`rev:${r.revisionId}`}>
              {shortId(r.revisionId, 12)} · {dateTime(r.createdAt)}
            </option>
          ))}
        </optgroup>
      )}
    </>
  );
  return (
    <form method="get" action="/compare" className="card flex flex-wrap items-end gap-3 p-4" aria-label="Choose what to compare">
      <label className="flex flex-col gap-1 text-xs font-medium text-slate-600">
        Policy
        <select name="policy" defaultValue={policy ?? ''} className="input w-56" required>
          <option value="" disabled>
            Choose a policy…
          </option>
          {options.policies.map((p) => (
            <option key={p}>{p}</option>
          ))}
        </select>
      </label>
      <label className="flex flex-col gap-1 text-xs font-medium text-slate-600">
        From
        <select name="from" defaultValue={from ?? options.stages[options.stages.length - 2] ?? ''} className="input w-64">
          {sideOptions}
        </select>
      </label>
      <label className="flex flex-col gap-1 text-xs font-medium text-slate-600">
        To
        <select name="to" defaultValue={to ?? options.stages[options.stages.length - 1] ?? ''} className="input w-64">
          {sideOptions}
        </select>
      </label>
      <button type="submit" className="btn btn-primary">
        Compare
      </button>
      {!policy && <p className="w-full text-xs text-slate-600">Pick a policy first to list its revisions as well as its stages.</p>}
    </form>
  );
}
