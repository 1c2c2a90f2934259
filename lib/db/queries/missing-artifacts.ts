/**
 * The one answer to "which cookbooks of this lock have no artifact on the
 * server" (issue 22): the revision page, the stage-to-stage comparison, the
 * promotion preview and the pointer guard of stages that require artifacts
 * all ask here.
 */
import type { PolicyLock } from '@/lib/domain';
import { db, type Tx } from '../client';

export interface ArtifactPin {
  name: string;
  identifier: string;
}

/** The (cookbook, identifier) pairs a lock pins, in the lock's order. */
export function lockPins(lock: Pick<PolicyLock, 'cookbook_locks'>): ArtifactPin[] {
  return Object.entries(lock.cookbook_locks ?? {}).map(([name, cb]) => ({ name, identifier: String((cb as { identifier?: unknown }).identifier ?? '') }));
}

/** The pins of a stored revision: from its cookbook digest ("version|identifier" per cookbook), else from its document. */
export async function revisionPins(tx: Tx, revisionPk: string): Promise<ArtifactPin[]> {
  const rev = await tx.policyRevision.findUniqueOrThrow({ where: { id: revisionPk }, select: { cookbookDigest: true, document: true } });
  if (!rev.cookbookDigest) return lockPins(JSON.parse(rev.document) as PolicyLock);
  return Object.entries(JSON.parse(rev.cookbookDigest) as Record<string, string>).map(([name, v]) => ({ name, identifier: v.split('|')[1] }));
}

/** "name identifier" of every pin with no artifact on the server, in the pins' order. */
export async function missingArtifacts(pins: ArtifactPin[], tx: Tx = db()): Promise<string[]> {
  if (!pins.length) return [];
  const present = await tx.cookbookArtifact.findMany({ where: { OR: pins.map((p) => ({ name: p.name, identifier: p.identifier })) }, select: { name: true, identifier: true } });
  const have = new Set(present.map((a) => `${a.name} ${a.identifier}`));
  return pins.map((p) => `${p.name} ${p.identifier}`).filter((p) => !have.has(p));
}
