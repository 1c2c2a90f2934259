'use client';

import { Fragment, useMemo, useState } from 'react';
import { lcsPairs } from '@/lib/domain';

/**
 * Side-by-side (or unified) line diff of the two canonical lock texts, unchanged
 * regions folded. A plain table in the console's own colours (every pair at
 * least 4.5:1), with +/− markers so changes do not rely on colour, one button
 * per fold and no landmarks of its own: react-diff-viewer nested buttons,
 * added a banner and drew line numbers at 3.1:1.
 */
type Line = { kind: 'same' | 'removed' | 'added'; a?: number; b?: number; text: string };
type Row = { left?: Line; right?: Line };
type Block = { kind: 'rows'; rows: Row[] } | { kind: 'fold'; id: number; rows: Row[] };

const CONTEXT = 3;

function lineDiff(from: string, to: string): Line[] {
  const a = from.split('\n');
  const b = to.split('\n');
  const pairs = lcsPairs(a, b);
  const out: Line[] = [];
  let i = 0;
  let j = 0;
  for (const [pi, pj] of [...pairs, [a.length, b.length] as [number, number]]) {
    while (i < pi) out.push({ kind: 'removed', a: i + 1, text: a[i++] });
    while (j < pj) out.push({ kind: 'added', b: j + 1, text: b[j++] });
    if (pi < a.length && pj < b.length) out.push({ kind: 'same', a: pi + 1, b: pj + 1, text: a[pi] });
    i = pi + 1;
    j = pj + 1;
  }
  return out;
}

/** Pairs removed/added runs side by side (split) or keeps one line per row (unified). */
function toRows(lines: Line[], split: boolean): Row[] {
  if (!split) return lines.map((l) => ({ left: l }));
  const rows: Row[] = [];
  for (let k = 0; k < lines.length; ) {
    if (lines[k].kind === 'same') {
      rows.push({ left: lines[k], right: lines[k] });
      k++;
      continue;
    }
    const removed: Line[] = [];
    const added: Line[] = [];
    while (k < lines.length && lines[k].kind === 'removed') removed.push(lines[k++]);
    while (k < lines.length && lines[k].kind === 'added') added.push(lines[k++]);
    for (let n = 0; n < Math.max(removed.length, added.length); n++) rows.push({ left: removed[n], right: added[n] });
  }
  return rows;
}

function fold(rows: Row[]): Block[] {
  const changed = rows.map((r) => r.left?.kind !== 'same' || (r.right !== undefined && r.right.kind !== 'same'));
  const keep = rows.map((_, k) => changed.slice(Math.max(0, k - CONTEXT), k + CONTEXT + 1).some(Boolean));
  const blocks: Block[] = [];
  let id = 0;
  for (let k = 0; k < rows.length; ) {
    const start = k;
    const kept = keep[k];
    while (k < rows.length && keep[k] === kept) k++;
    blocks.push(kept ? { kind: 'rows', rows: rows.slice(start, k) } : { kind: 'fold', id: id++, rows: rows.slice(start, k) });
  }
  return blocks;
}

const CELL = { same: '', removed: 'bg-red-50 text-red-900', added: 'bg-emerald-50 text-emerald-900' } as const;
const MARK = { same: ' ', removed: '−', added: '+' } as const;

function Cells({ line, side }: { line?: Line; side: 'a' | 'b' }) {
  if (!line) return <td colSpan={3} className="bg-slate-50" />;
  const n = side === 'a' ? (line.a ?? line.b) : (line.b ?? line.a);
  return (
    <>
      <td className={`w-12 select-none border-r border-slate-200 px-2 text-right text-slate-700 ${CELL[line.kind]}`}>{n}</td>
      <td className={`w-5 select-none px-1 text-center font-bold ${CELL[line.kind]}`}>
        <span aria-hidden>{MARK[line.kind]}</span>
        <span className="sr-only">{line.kind === 'same' ? '' : line.kind}</span>
      </td>
      <td className={`whitespace-pre-wrap break-all px-2 ${CELL[line.kind]}`}>{line.text}</td>
    </>
  );
}

export default function TextDiff({ from, to, split, leftTitle, rightTitle }: { from: string; to: string; split: boolean; leftTitle: string; rightTitle: string }) {
  const blocks = useMemo(() => fold(toRows(lineDiff(from, to), split)), [from, to, split]);
  const [open, setOpen] = useState<Set<number>>(() => new Set());
  const cols = split ? 6 : 3;
  return (
    <table className="mono w-full table-fixed border-collapse text-xs leading-[18px]">
      <caption className="sr-only">
        Text diff: {split ? `${leftTitle} on the left, ${rightTitle} on the right` : `${leftTitle} to ${rightTitle}, removed and added lines marked`}
      </caption>
      <colgroup>
        <col className="w-12" />
        <col className="w-5" />
        <col />
        {split && (
          <>
            <col className="w-12" />
            <col className="w-5" />
            <col />
          </>
        )}
      </colgroup>
      <thead>
        <tr className="border-b border-slate-200 bg-slate-50 text-left font-sans text-xs font-semibold text-slate-700">
          <th scope="col" colSpan={3} className="px-2 py-1.5">
            {split ? leftTitle : `${leftTitle} → ${rightTitle}`}
          </th>
          {split && (
            <th scope="col" colSpan={3} className="border-l border-slate-200 px-2 py-1.5">
              {rightTitle}
            </th>
          )}
        </tr>
      </thead>
      <tbody>
        {blocks.map((b, k) =>
          b.kind === 'fold' && !open.has(b.id) ? (
            <tr key={`f${b.id}`} className="bg-sky-50">
              <td colSpan={cols} className="px-2 py-0.5">
                <button type="button" className="font-sans text-xs text-sky-900 underline" onClick={() => setOpen(new Set(open).add(b.id))}>
                  Show {b.rows.length} unchanged line{b.rows.length === 1 ? '' : 's'}
                </button>
              </td>
            </tr>
          ) : (
            <Fragment key={k}>
              {b.rows.map((r, n) => (
                <tr key={n}>
                  <Cells line={r.left} side="a" />
                  {split && <Cells line={r.right} side="b" />}
                </tr>
              ))}
            </Fragment>
          ),
        )}
      </tbody>
    </table>
  );
}
