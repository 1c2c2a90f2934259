import type { Access } from '@/lib/auth/permissions';
import { badRevisions, canMarkRevision } from './bad-revisions';

export interface BadMark {
  reason: string;
  by: string;
  at: string;
}

/** Every revision of a policy marked bad, by revision id (for the history, compare and revision pages). */
export async function badRevisionsOf(policy: string): Promise<Record<string, BadMark>> {
  const marks = await badRevisions([policy]);
  return Object.fromEntries(Object.values(marks).map((m) => [m.revision_id, { reason: m.reason, by: m.marked_by, at: m.marked_at }]));
}

/** The mark on one revision and whether the viewer may set or clear it (the service's own rule: owner team, or promote on a stage running it). */
export async function badRevisionState(access: Access, policy: string, revisionId: string): Promise<{ mark: BadMark | null; canMark: boolean }> {
  const [marks, canMark] = await Promise.all([badRevisionsOf(policy), canMarkRevision(access, policy, revisionId)]);
  return { mark: marks[revisionId] ?? null, canMark };
}
