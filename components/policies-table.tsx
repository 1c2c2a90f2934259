'use client';

import Link from 'next/link';
import { useState } from 'react';
import { RelativeTime } from './relative-time';
import { DataTable } from '@/components/data-table';

export interface PolicyRow {
  name: string;
  team: string | null;
  revisions: number;
  lastRevisionAt: string | null;
  stages: string[];
}

export function PoliciesTable({ rows }: { rows: PolicyRow[] }) {
  const [q, setQ] = useState('');
  const shown = rows.filter((r) => !q || r.name.toLowerCase().includes(q.toLowerCase()) || (r.team ?? '').includes(q.toLowerCase()));
  return (
    <div className="space-y-3">
      <input aria-label="Search policies" placeholder="Search by policy or team…" className="input max-w-sm" value={q} onChange={(e) => setQ(e.target.value)} />
      <DataTable columns={['Policy', 'Owner team', 'Revisions', 'Latest revision', 'Stages using it']} rows={shown} empty={rows.length === 0 ? 'No policies yet. Upload a lock to create one.' : 'No policy matches your search.'}>
        {(r) => (
          <tr key={r.name}>
            <td>
              <Link href={`/policies/${encodeURIComponent(r.name)}`} className="font-medium text-indigo-700 hover:underline">
                {r.name}
              </Link>
            </td>
            <td>{r.team ?? <span className="text-slate-600">none</span>}</td>
            <td>{r.revisions}</td>
            <td className="text-slate-600">{r.lastRevisionAt ? <RelativeTime iso={r.lastRevisionAt} /> : '—'}</td>
            <td>
              <div className="flex flex-wrap gap-1">
                {r.stages.length === 0 && <span className="text-slate-600">none</span>}
                {r.stages.map((s) => (
                  <span key={s} className="badge bg-slate-100 text-slate-700">
                    {s}
                  </span>
                ))}
              </div>
            </td>
          </tr>
        )}
      </DataTable>
    </div>
  );
}
