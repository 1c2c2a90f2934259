'use client';

import { useState, type ReactNode } from 'react';

/**
 * The rows a window shows: `offsetOf(i)` is row i's top (increasing, `offsetOf(count)` the total height), `top`/`bottom`
 * the visible band in the same coordinates. Returns rows [first, last): those crossing the band plus `overscan` rows on
 * each side. Shared by VirtualRows (fixed heights) and the stage board (measured heights).
 */
export function rowWindow(count: number, offsetOf: (i: number) => number, top: number, bottom: number, overscan: number): { first: number; last: number } {
  // The first row whose bottom is below `top`, by binary search over the increasing offsets.
  let lo = 0;
  let hi = count;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (offsetOf(mid + 1) <= top) lo = mid + 1;
    else hi = mid;
  }
  let end = lo;
  while (end < count && offsetOf(end) < bottom) end++;
  return { first: Math.max(0, lo - overscan), last: Math.min(count, Math.max(end, lo + 1) + overscan) };
}

/**
 * A windowed table of fixed-height rows: only the visible slice is in the DOM, so
 * 5,000 rows stay fast. ARIA table semantics: `header` renders one
 * `role="row"` of `role="columnheader"` cells, and `render` one `role="row"`
 * (with `aria-rowindex={rowIndex}`) of `role="cell"` cells, so assistive
 * technology knows where a slice sits. The scrolling body is itself
 * focusable, so keyboard users can scroll it.
 */
export function VirtualRows<T>({
  items,
  rowHeight = 34,
  height = 420,
  render,
  header,
  label,
}: {
  items: T[];
  rowHeight?: number;
  height?: number;
  /** `rowIndex`: the row's aria-rowindex (the header is row 1). */
  render: (item: T, index: number, rowIndex: number) => ReactNode;
  header: ReactNode;
  label: string;
}) {
  const [top, setTop] = useState(0);
  const total = items.length * rowHeight;
  const viewport = Math.min(height, total);
  const { first, last } = rowWindow(items.length, (i) => i * rowHeight, top, top + viewport, 10);
  const scrolls = total > viewport;
  return (
    <div role="table" aria-label={label} aria-rowcount={items.length + 1}>
      <div role="rowgroup">{header}</div>
      <div style={{ height: viewport, overflowY: 'auto' }} onScroll={(e) => setTop(e.currentTarget.scrollTop)} tabIndex={scrolls ? 0 : undefined} className="focus-visible:outline-2 focus-visible:outline-indigo-600">
        <div role="rowgroup" style={{ height: total, position: 'relative' }}>
          {items.slice(first, last).map((item, k) => (
            <div key={first + k} style={{ position: 'absolute', top: (first + k) * rowHeight, height: rowHeight, left: 0, right: 0 }}>
              {render(item, first + k, first + k + 2)}
            </div>
          ))}
        </div>
      </div>
    </div>
  );
}
