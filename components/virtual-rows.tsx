'use client';

import { useState, type ReactNode } from 'react';

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
  const first = Math.max(0, Math.floor(top / rowHeight) - 10);
  const last = Math.min(items.length, Math.ceil((top + viewport) / rowHeight) + 10);
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
