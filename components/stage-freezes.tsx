'use client';

import { useState } from 'react';
import type { FreezeWindowDto } from '@/lib/types/guards';
import { Time } from './time';
import { ConfirmDialog } from './modal';

export interface NewFreeze {
  starts_at: string;
  ends_at: string;
  reason: string;
  weekly: boolean;
}

const WEEKDAY = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const hm = (d: Date) => d.toISOString().slice(11, 16);

/** "every Friday 16:00 → Monday 06:00 UTC" for a weekly window. */
export function weeklyText(f: { starts_at: string; ends_at: string }): string {
  const s = new Date(f.starts_at);
  const e = new Date(f.ends_at);
  return `every ${WEEKDAY[s.getUTCDay()]} ${hm(s)} → ${WEEKDAY[e.getUTCDay()]} ${hm(e)} UTC`;
}

/** A datetime-local value (no zone) read as UTC, as the form says. */
const utc = (local: string) => (local ? new Date(`${local}:00Z`).toISOString() : '');

/** A stage's freeze windows: list, add (one-off or weekly, times in UTC), delete with confirmation. */
export function StageFreezes({ stage, freezes, disabled, pending, onAdd, onDelete }: { stage: string; freezes: FreezeWindowDto[]; disabled: boolean; pending: boolean; onAdd: (f: NewFreeze) => Promise<unknown>; onDelete: (id: string) => Promise<unknown> }) {
  const [deleting, setDeleting] = useState<FreezeWindowDto | null>(null);
  const id = (s: string) => `freeze-${stage}-${s}`;
  return (
    <div className="space-y-2" data-testid="stage-freezes">
      {freezes.length === 0 ? (
        <p className="text-sm text-slate-600">No freeze windows.</p>
      ) : (
        <ul className="space-y-1 text-sm" aria-label={`Freeze windows of ${stage}`}>
          {freezes.map((f) => (
            <li key={f.id} className="flex flex-wrap items-center gap-2" data-testid="freeze-row" data-active={f.active ? true : undefined}>
              {f.active && <span className="badge bg-sky-100 text-sky-900">in force</span>}
              {f.past && <span className="badge bg-slate-100 text-slate-700">past</span>}
              <span>{f.weekly ? weeklyText(f) : <><Time iso={f.starts_at} /> → <Time iso={f.ends_at} /></>}</span>
              <span className="text-slate-700">“{f.reason}”</span>
              {f.created_by && <span className="text-xs text-slate-600">by {f.created_by}</span>}
              {!disabled && (
                <button type="button" className="text-xs text-red-700 hover:underline" onClick={() => setDeleting(f)}>
                  delete<span className="sr-only"> the freeze “{f.reason}”</span>
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {!disabled && (
        <form
          className="flex flex-wrap items-end gap-2"
          aria-label={`Add a freeze window to ${stage}`}
          onSubmit={(e) => {
            e.preventDefault();
            const form = e.currentTarget;
            const f = new FormData(form);
            onAdd({ starts_at: utc(String(f.get('starts'))), ends_at: utc(String(f.get('ends'))), reason: String(f.get('reason') ?? '').trim(), weekly: f.get('weekly') === 'on' }).then(
              () => form.reset(),
              () => undefined, // the toast said why; the form keeps what was typed
            );
          }}
        >
          <label htmlFor={id('starts')} className="flex flex-col text-xs font-medium text-slate-600">
            Starts (UTC)
            <input id={id('starts')} name="starts" type="datetime-local" required className="input mt-1 w-52" />
          </label>
          <label htmlFor={id('ends')} className="flex flex-col text-xs font-medium text-slate-600">
            Ends (UTC)
            <input id={id('ends')} name="ends" type="datetime-local" required className="input mt-1 w-52" />
          </label>
          <label htmlFor={id('reason')} className="flex min-w-48 flex-1 flex-col text-xs font-medium text-slate-600">
            Reason
            <input id={id('reason')} name="reason" required maxLength={500} className="input mt-1" placeholder="e.g. Black Friday change freeze" />
          </label>
          <label className="flex items-center gap-1.5 pb-2 text-sm">
            <input type="checkbox" name="weekly" /> repeats weekly
          </label>
          <button type="submit" className="btn" disabled={pending}>
            Add freeze
          </button>
        </form>
      )}
      {deleting && (
        <ConfirmDialog
          title={`Delete the freeze “${deleting.reason}” on ${stage}?`}
          confirmLabel="Delete freeze"
          danger
          pending={pending}
          onConfirm={() => onDelete(deleting.id).then(() => setDeleting(null))}
          onClose={() => setDeleting(null)}
        >
          {deleting.active ? `It is in force now: ${stage} opens for promotions at once.` : 'Promotions are no longer held during this window.'}
        </ConfirmDialog>
      )}
    </div>
  );
}
