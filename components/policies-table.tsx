'use client';

import Link from 'next/link';
import { useState } from 'react';
import { RelativeTime } from './relative-time';

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
      <div className="card overflow-x-auto">
        <table className="table">
          <thead>
            <tr>
              <th>Policy</th>
              <th>Owner team</th>
              <th>Revisions</th>
              <th>Latest revision</th>
              <th>Stages using it</th>
            </tr>
          </thead>
          <tbody>
            {shown.length === 0 && (
              <tr>
                <td colSpan={5} className="py-8 text-center text-slate-600">
                  {rows.length === 0 ? 'No policies yet. Upload a lock to create one.' : 'No policy matches your search.'}
                </td>
              </tr>
            )}
            {shown.map((r) => (
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
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
