/**
 * Freeze windows (issue 15), computed in UTC. A one-off window covers
 * [startsAt, endsAt). A weekly window repeats that same range every 7 days
 * from its first occurrence on (same weekday and time of day, in UTC; no
 * daylight-saving shifts), so it must be shorter than a week. Pure: the clock
 * is an argument.
 */
export const WEEK_MS = 7 * 24 * 60 * 60 * 1000;

export interface FreezeWindowSpec {
  id: string;
  startsAt: Date;
  endsAt: Date;
  weekly: boolean;
  reason: string;
}

export interface FreezeOccurrence {
  window: FreezeWindowSpec;
  start: Date;
  end: Date;
}

/** The occurrence of a window that covers `now`, or null. */
export function activeOccurrence(w: FreezeWindowSpec, now: Date): FreezeOccurrence | null {
  const s = w.startsAt.getTime();
  const e = w.endsAt.getTime();
  const t = now.getTime();
  if (e <= s || t < s) return null;
  if (!w.weekly) return t < e ? { window: w, start: w.startsAt, end: w.endsAt } : null;
  const k = Math.floor((t - s) / WEEK_MS);
  const start = s + k * WEEK_MS;
  return t < start + (e - s) ? { window: w, start: new Date(start), end: new Date(start + (e - s)) } : null;
}

/** The next occurrence starting after `now` (null when a one-off window has begun or passed). */
export function nextOccurrence(w: FreezeWindowSpec, now: Date): FreezeOccurrence | null {
  const s = w.startsAt.getTime();
  const e = w.endsAt.getTime();
  const t = now.getTime();
  if (e <= s) return null;
  if (t < s) return { window: w, start: w.startsAt, end: w.endsAt };
  if (!w.weekly) return null;
  const k = Math.floor((t - s) / WEEK_MS) + 1;
  return { window: w, start: new Date(s + k * WEEK_MS), end: new Date(s + k * WEEK_MS + (e - s)) };
}

export interface FreezeStatus {
  /** The occurrences covering now (possibly several overlapping windows). */
  active: FreezeOccurrence[];
  /** When every window covering now has ended, walking through overlaps and back-to-back windows; null when not frozen. */
  opensAt: Date | null;
  /** The earliest occurrence starting after now. */
  next: FreezeOccurrence | null;
}

/** Whether a stage is frozen now, when it opens, and the next freeze. */
export function freezeStatus(windows: readonly FreezeWindowSpec[], now: Date): FreezeStatus {
  const active = windows.map((w) => activeOccurrence(w, now)).filter((o): o is FreezeOccurrence => !!o).sort((a, b) => a.end.getTime() - b.end.getTime());
  let opensAt: Date | null = null;
  if (active.length) {
    // Chained windows: while another window covers the moment this one ends, the stage stays frozen (bounded walk).
    let t = new Date(Math.max(...active.map((o) => o.end.getTime())));
    for (let i = 0; i < 100; i++) {
      const more = windows.map((w) => activeOccurrence(w, t)).filter((o): o is FreezeOccurrence => !!o);
      if (!more.length) break;
      t = new Date(Math.max(...more.map((o) => o.end.getTime())));
    }
    opensAt = t;
  }
  const next = windows
    .map((w) => nextOccurrence(w, now))
    .filter((o): o is FreezeOccurrence => !!o)
    .sort((a, b) => a.start.getTime() - b.start.getTime())[0] ?? null;
  return { active, opensAt, next };
}

/** Problems with a window as submitted (field, message), empty when valid. */
export function validateFreezeWindow(startsAt: Date, endsAt: Date, weekly: boolean): { path: string; message: string }[] {
  const out: { path: string; message: string }[] = [];
  if (Number.isNaN(startsAt.getTime())) out.push({ path: '/starts_at', message: 'starts_at must be an ISO 8601 date-time, e.g. 2026-12-24T00:00:00Z' });
  if (Number.isNaN(endsAt.getTime())) out.push({ path: '/ends_at', message: 'ends_at must be an ISO 8601 date-time, e.g. 2026-12-27T00:00:00Z' });
  if (out.length) return out;
  if (endsAt.getTime() <= startsAt.getTime()) out.push({ path: '/ends_at', message: 'ends_at must be after starts_at' });
  else if (weekly && endsAt.getTime() - startsAt.getTime() >= WEEK_MS) out.push({ path: '/ends_at', message: 'a weekly window must be shorter than 7 days' });
  return out;
}
