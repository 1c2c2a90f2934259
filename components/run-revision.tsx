'use client';

import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { BoardData } from '@/lib/types/board';
import { getJson } from './change-preview';
import { PromoteDialog } from './promote-dialog';

/**
 * "Run in <stage>" for one revision (a fresh upload runs nowhere until someone
 * starts it): the stages the user may promote into, first one preselected, and
 * the same dialog as every other promotion.
 */
export function RunRevision({ policy, revisionId }: { policy: string; revisionId: string }) {
  const board = useQuery({ queryKey: ['board'], queryFn: () => getJson<BoardData>('/api/v1/board') });
  const stages = (board.data?.stages ?? []).filter((s) => s.canPromote);
  const row = board.data?.policies.find((p) => p.name === policy);
  const [choice, setChoice] = useState<string | null>(null);
  const [open, setOpen] = useState(false);
  const runsIn = (stage: string) => row?.cells[stage]?.revisionId === revisionId;
  const candidates = stages.filter((s) => !runsIn(s.name));
  if (!board.data || candidates.length === 0) return null;
  const stage = choice && candidates.some((s) => s.name === choice) ? choice : candidates[0].name;
  return (
    <div className="flex items-center gap-1">
      {candidates.length > 1 && (
        <select aria-label="Stage to run this revision in" className="input w-auto" value={stage} onChange={(e) => setChoice(e.target.value)}>
          {candidates.map((s) => (
            <option key={s.name} value={s.name}>
              {s.name}
            </option>
          ))}
        </select>
      )}
      <button type="button" className="btn btn-primary" onClick={() => setOpen(true)} data-testid="run-revision">
        Run in {stage}
      </button>
      {open && <PromoteDialog target={{ policy, from: `rev:${revisionId}`, to: stage, expectedRevisionId: row?.cells[stage]?.revisionId ?? null }} onClose={() => setOpen(false)} />}
    </div>
  );
}
