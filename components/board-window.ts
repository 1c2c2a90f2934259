'use client';

import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type FocusEvent, type KeyboardEvent, type RefObject } from 'react';
import { rowWindow } from './virtual-rows';

/** Above this many rows (after the filters) the board renders only the rows near the viewport; at or below, every row as before. */
const BOARD_WINDOW_FROM = 100;
/** Rows rendered before the browser has measured anything (the server's HTML and the first client render agree on it). */
const FIRST_ROWS = 10;
/** A row's height before it has been measured once the board has measured none (px). */
const ROW_GUESS = 140;
/** Rows rendered past each edge of the viewport. */
const OVERSCAN = 3;

/** A rendered segment of the board's body: a policy row (its index in `names`), or a spacer of that many pixels standing for rows not rendered. */
type BoardSegment = { row: number } | { gap: number; key: string };

type Focus = 'first' | 'last' | 'promote' | null;

const TABBABLE = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/** The anchor a deep link to a policy's row uses: `/#policy-<name>`. */
export const policyAnchor = (name: string) => `policy-${name}`;

/**
 * Windowing for the stage board's `<tbody>` (a table in the page's own scroll, with rows of varying height): which rows
 * to render, and spacer rows of the measured (or, until measured, estimated) height of the rows left out, so the
 * scroll bar and positions stay right. Uses rowWindow (components/virtual-rows.tsx) over the rows' offsets.
 *
 * Kept working while rows come and go:
 * - the row holding the focus stays rendered wherever the page scrolls (focus is never dropped on the body);
 * - Tab from a row's last control (Shift+Tab from its first) moves into the next (previous) policy's row even when that
 *   row is not rendered yet: it is rendered, scrolled into view and focused;
 * - `reveal(name, focus)` renders a row, scrolls it into view and optionally focuses it (the search box's Enter, deep
 *   links `/#policy-<name>`, on load and on hash changes).
 */
export function useBoardWindow(names: string[], body: RefObject<HTMLTableSectionElement | null>) {
  const windowed = names.length > BOARD_WINDOW_FROM;
  const heights = useRef(new Map<string, number>());
  const [measured, setMeasured] = useState(0);
  const [range, setRange] = useState(() => ({ first: 0, last: FIRST_ROWS }));
  const [pinned, setPinned] = useState<string | null>(null);
  const [pending, setPending] = useState<{ name: string; focus: Focus } | null>(null);

  // offsets[i]: row i's top in the body; offsets[names.length]: the body's height. `measured` changes when a row's height did.
  const offsets = useMemo(() => {
    const known = [...heights.current.values()];
    const guess = known.length ? known.reduce((a, b) => a + b, 0) / known.length : ROW_GUESS;
    const out = new Array<number>(names.length + 1);
    out[0] = 0;
    for (let i = 0; i < names.length; i++) out[i + 1] = out[i] + (heights.current.get(names[i]) ?? guess);
    return out;
    // `measured` stands for the heights map (a ref): it changes when a row's height did.
  }, [names, measured]);
  const latest = useRef(offsets);

  /** Recompute the window from where the body sits in the viewport; re-renders only when the window changes. */
  const update = useCallback(() => {
    const el = body.current;
    if (!el) return;
    const top = -el.getBoundingClientRect().top;
    const off = latest.current;
    const next = rowWindow(off.length - 1, (i) => off[i], top, top + window.innerHeight, OVERSCAN);
    setRange((prev) => (prev.first === next.first && prev.last === next.last ? prev : next));
  }, [body]);

  // After every render: measure the rendered rows (a changed height re-renders with the spacers corrected), then the window.
  useLayoutEffect(() => {
    latest.current = offsets;
    const el = body.current;
    if (!windowed || !el) return;
    let changed = false;
    for (const tr of el.querySelectorAll<HTMLTableRowElement>(':scope > tr[data-policy]')) {
      const name = tr.dataset.policy!;
      const h = tr.getBoundingClientRect().height;
      if (Math.abs((heights.current.get(name) ?? -10) - h) > 1) {
        heights.current.set(name, h);
        changed = true;
      }
    }
    if (changed) setMeasured((n) => n + 1);
    else update();
  });

  useEffect(() => {
    if (!windowed) return;
    let frame = 0;
    const onScroll = () => {
      if (!frame) frame = requestAnimationFrame(() => ((frame = 0), update()));
    };
    window.addEventListener('scroll', onScroll, { passive: true });
    window.addEventListener('resize', onScroll, { passive: true });
    return () => {
      cancelAnimationFrame(frame);
      window.removeEventListener('scroll', onScroll);
      window.removeEventListener('resize', onScroll);
    };
  }, [windowed, update]);

  const reveal = useCallback((name: string, focus: Focus) => {
    setPinned(name);
    setPending({ name, focus });
  }, []);

  // A revealed row is rendered by now: scroll it into view and focus what was asked.
  useLayoutEffect(() => {
    if (!pending) return;
    const tr = body.current?.querySelector<HTMLElement>(`:scope > tr[data-policy="${CSS.escape(pending.name)}"]`);
    setPending(null);
    if (!tr) return;
    const stops = [...tr.querySelectorAll<HTMLElement>(TABBABLE)];
    const target =
      pending.focus === 'first' ? stops[0] : pending.focus === 'last' ? stops.at(-1) : pending.focus === 'promote' ? (tr.querySelector<HTMLElement>('[data-testid="promote-button"]') ?? tr.querySelector<HTMLElement>('th a')) : null;
    tr.scrollIntoView({ block: pending.focus ? 'nearest' : 'center' });
    target?.focus({ preventScroll: true });
    target?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }, [pending, body]);

  // Deep links: /#policy-<name> on load (before the first paint after hydration) and on later hash changes.
  useLayoutEffect(() => {
    const fromHash = () => {
      const hash = decodeURIComponent(window.location.hash.slice(1));
      if (hash.startsWith(policyAnchor(''))) reveal(hash.slice(policyAnchor('').length), null);
    };
    fromHash();
    window.addEventListener('hashchange', fromHash);
    return () => window.removeEventListener('hashchange', fromHash);
  }, [reveal]);

  /** On the body: the focused row stays rendered. */
  const onFocus = useCallback((e: FocusEvent<HTMLElement>) => {
    const name = (e.target as Element).closest<HTMLElement>('tr[data-policy]')?.dataset.policy;
    if (name) setPinned(name);
  }, []);

  /** On the body: Tab past a row's last control (Shift+Tab before its first) goes to the neighbouring policy even when it is not rendered. */
  const onKeyDown = useCallback(
    (e: KeyboardEvent<HTMLElement>) => {
      if (!windowed || e.key !== 'Tab' || e.altKey || e.ctrlKey || e.metaKey) return;
      const tr = (e.target as Element).closest<HTMLElement>('tr[data-policy]');
      if (!tr) return;
      const stops = [...tr.querySelectorAll<HTMLElement>(TABBABLE)];
      const i = names.indexOf(tr.dataset.policy!);
      if (i < 0) return;
      const forward = !e.shiftKey;
      if (e.target !== (forward ? stops.at(-1) : stops[0])) return;
      const neighbour = forward ? tr.nextElementSibling : tr.previousElementSibling;
      const j = forward ? i + 1 : i - 1;
      if (j < 0 || j >= names.length || neighbour?.hasAttribute('data-policy')) return; // rendered already (or no such row): the browser's own order
      e.preventDefault();
      reveal(names[j], forward ? 'first' : 'last');
    },
    [windowed, names, reveal],
  );

  // Rows to render: the window, plus the focused (pinned) row wherever it is; spacers for the runs left out.
  const segments = useMemo((): BoardSegment[] => {
    if (!windowed) return names.map((_, row) => ({ row }));
    const shown = new Set<number>();
    for (let i = range.first; i < Math.min(range.last, names.length); i++) shown.add(i);
    const p = pinned === null ? -1 : names.indexOf(pinned);
    if (p >= 0) shown.add(p);
    const rows = [...shown].sort((a, b) => a - b);
    const out: BoardSegment[] = [];
    let at = 0;
    for (const row of rows) {
      if (row > at) out.push({ gap: offsets[row] - offsets[at], key: `gap-${at}` });
      out.push({ row });
      at = row + 1;
    }
    if (at < names.length) out.push({ gap: offsets[names.length] - offsets[at], key: `gap-${at}` });
    return out;
  }, [windowed, names, range, pinned, offsets]);

  return { windowed, segments, reveal, bodyProps: { onFocus, onKeyDown } };
}
