import type { ButtonHTMLAttributes, ReactNode } from 'react';

/** A column heading: its text, or the text with the cell's class; `hidden` names it for screen readers only (a row-actions column). */
export type Column = string | { label: ReactNode; className?: string; hidden?: boolean };

/** The last column of a table whose rows carry buttons: named for screen readers only. */
export const ACTIONS: Column = { label: 'Actions', hidden: true };

/**
 * The console's list table: a card that scrolls sideways, a header row from `columns`, one row per item by `children`,
 * and, when there is none and `empty` is given, one row saying so across every column.
 * `region` makes the card a labelled, keyboard-scrollable region; `frame` replaces the card's class (`null`: no wrapper);
 * `after` stands in the card below the table (a pager).
 */
export function DataTable<T>({
  columns,
  rows,
  children,
  empty,
  testId,
  caption,
  region,
  frame = 'card overflow-x-auto',
  className,
  after,
}: {
  columns: Column[];
  rows: readonly T[];
  children: (row: T, index: number) => ReactNode;
  empty?: ReactNode;
  testId?: string;
  caption?: string;
  region?: string;
  frame?: string | null;
  className?: string;
  after?: ReactNode;
}) {
  const table = (
    <table className={className ? `table ${className}` : 'table'} data-testid={testId}>
      {caption && <caption className="sr-only">{caption}</caption>}
      <thead>
        <tr>
          {columns.map((c, i) => (
            <HeaderCell key={i} column={c} />
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.length === 0 && empty !== undefined && (
          <tr>
            <td colSpan={columns.length} className="py-6 text-center text-slate-600">
              {empty}
            </td>
          </tr>
        )}
        {rows.map(children)}
      </tbody>
    </table>
  );
  if (frame === null) return table;
  return region ? (
    <div className={frame} tabIndex={0} role="region" aria-label={region}>
      {table}
      {after}
    </div>
  ) : (
    <div className={frame}>
      {table}
      {after}
    </div>
  );
}

function HeaderCell({ column }: { column: Column }) {
  const c = typeof column === 'string' ? { label: column } : column;
  return (
    <th scope="col" className={c.className}>
      {c.hidden ? <span className="sr-only">{c.label}</span> : c.label}
    </th>
  );
}

/** A small button in a table row (delete, revoke, rotate …). */
export function RowButton({ children, ...props }: ButtonHTMLAttributes<HTMLButtonElement>) {
  return (
    <button type="button" className="btn py-0.5 text-xs" {...props}>
      {children}
    </button>
  );
}
