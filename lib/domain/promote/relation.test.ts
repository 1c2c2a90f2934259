import { describe, expect, it } from 'vitest';
import { moveEdges, stageRelation, type RelationRevision } from './relation';

const rev = (revisionId: string, versions: Record<string, string>, createdAt: string, imported = true): RelationRevision => ({ revisionId, versions: new Map(Object.entries(versions)), createdAt: new Date(createdAt), imported });

describe('stageRelation (issue 42: not by import time)', () => {
  const older = rev('a', { web: '1.0.0' }, '2026-12-01T10:00:05Z');
  const newer = rev('b', { web: '1.1.0' }, '2026-12-01T10:00:01Z');

  it('imported revisions: by their cookbook versions, whatever order they were stored in', () => {
    expect(stageRelation(older, newer, new Map())).toBe('behind');
    expect(stageRelation(newer, older, new Map())).toBe('ahead');
  });

  it('pointer history decides first: a move from x to y says y came after x; rollbacks and first placings say nothing', () => {
    const sameVersions = [rev('x', { web: '1.0.0' }, '2026-12-01T10:00:09Z'), rev('y', { web: '1.0.0' }, '2026-12-01T10:00:00Z')] as const;
    const edges = moveEdges([
      { from: null, to: 'x', kind: 'set' },
      { from: 'x', to: 'y', kind: 'promote' },
      { from: 'y', to: 'x', kind: 'rollback' },
    ]);
    expect(stageRelation(sameVersions[1], sameVersions[0], edges)).toBe('ahead');
    expect(stageRelation(sameVersions[0], sameVersions[1], edges)).toBe('behind');
    expect(stageRelation(sameVersions[0], sameVersions[1], new Map())).toBeNull();
  });

  it('console uploads: by upload time; an imported one against mixed versions: undecided', () => {
    expect(stageRelation(rev('p', { a: '2.0.0' }, '2026-12-01T09:00:00Z', false), rev('q', { a: '1.0.0' }, '2026-12-01T10:00:00Z', false), new Map())).toBe('behind');
    expect(stageRelation(rev('p', { a: '2.0.0', b: '1.0.0' }, '2026-12-01T09:00:00Z'), rev('q', { a: '1.0.0', b: '2.0.0' }, '2026-12-01T10:00:00Z'), new Map())).toBeNull();
  });
});
