/**
 * Issue 42: the staged cut-over's one decision. The importer remembers, per object, the source's version it last
 * brought and the console's right after (ImportedObject, as fingerprints). A re-import then tells who moved:
 *
 * - same: the console holds what the source has (nothing to do);
 * - source-changed: the source moved since the last import and the console did not (apply the source's);
 * - console-changed: the console moved and the source did not (keep the console's: not a conflict);
 * - both-changed: both moved since (a conflict, with the fields that differ);
 * - unknown: they differ and there is no record (the console had its own before any import: a conflict).
 * Pure.
 */
export type SyncState = 'same' | 'source-changed' | 'console-changed' | 'both-changed' | 'unknown';

export interface SyncRecord {
  sourceHash: string;
  consoleHash: string;
}

export function syncState(sourceHash: string, consoleHash: string, record: SyncRecord | null): SyncState {
  if (sourceHash === consoleHash) return 'same';
  if (!record) return 'unknown';
  const sourceMoved = sourceHash !== record.sourceHash;
  const consoleMoved = consoleHash !== record.consoleHash;
  if (!sourceMoved) return 'console-changed';
  return consoleMoved ? 'both-changed' : 'source-changed';
}
