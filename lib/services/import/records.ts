/**
 * Issue 42: what the importer last brought per object (ImportedObject): the source's version and the console's
 * right after, as fingerprints (lib/domain/import/fingerprint.ts). Written after the object's own transaction:
 * a run killed in between leaves an object without its record, which the next run finds equal to the source
 * and records then.
 */
import { db } from '@/lib/db/client';

export type RecordKind = 'pointer' | 'data-bag-item' | 'node' | 'client' | 'user' | 'team';

export interface ImportRecord {
  sourceHash: string;
  consoleHash: string;
  created: boolean;
  importedAt: Date;
}

export async function loadRecord(kind: RecordKind, name: string): Promise<ImportRecord | null> {
  return db().importedObject.findUnique({ where: { kind_name: { kind, name } }, select: { sourceHash: true, consoleHash: true, created: true, importedAt: true } });
}

/** Records what was brought (or found equal, or kept); `created` once true stays true. */
export async function saveRecord(kind: RecordKind, name: string, r: { sourceHash: string; consoleHash: string; created?: boolean; runId: string; at?: Date }): Promise<void> {
  const at = r.at ?? new Date();
  await db().importedObject.upsert({
    where: { kind_name: { kind, name } },
    create: { kind, name, sourceHash: r.sourceHash, consoleHash: r.consoleHash, created: !!r.created, runId: r.runId, importedAt: at },
    update: { sourceHash: r.sourceHash, consoleHash: r.consoleHash, runId: r.runId, importedAt: at, ...(r.created ? { created: true } : {}) },
  });
}
