'use client';

import { useState, type ReactNode } from 'react';

/** A windowed list of fixed-height rows: only the visible slice is in the DOM, so 5,000 rows stay fast. */
export function VirtualRows<T>({ items, rowHeight = 34, height = 420, render, header }: { items: T[]; rowHeight?: number; height?: number; render: (item: T, index: number) => ReactNode; header?: ReactNode }) {
  const [top, setTop] = useState(0);
  const total = items.length * rowHeight;
  const viewport = Math.min(height, total);
  const first = Math.max(0, Math.floor(top / rowHeight) - 10);
  const last = Math.min(items.length, Math.ceil((top + viewport) / rowHeight) + 10);
  return (
    <div>
      {header}
      <div style={{ height: viewport, overflowY: 'auto' }} onScroll={(e) => setTop(e.currentTarget.scrollTop)} role="rowgroup">
        <div style={{ height: total, position: 'relative' }}>
          {items.slice(first, last).map((item, k) => (
            <div key={first + k} style={{ position: 'absolute', top: (first + k) * rowHeight, height: rowHeight, left: 0, right: 0 }}>
              {render(item, first + k)}
            </div>
          ))}
        </div>
      </div>
    </div>
  );
}
