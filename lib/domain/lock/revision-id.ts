import { sha256Stream } from './sha256';
import { sortCodePoints, TextSink, writeCanonical } from '@/lib/domain/shared';
import { JsonNumber, orderedKeys } from './json';
import { parseLossless } from './lossless';
import type { PolicyLock } from './types';

type LockLike = Record<string, unknown>;

/**
 * Writes the text chef-cli hashes for a lock's revision id
 * (`lib/chef-cli/policyfile_lock.rb`, `content_to_hash`).
 */
function writeRevisionText(lock: LockLike, sink: TextSink): void {
  const name = typeof lock.name === 'string' ? lock.name : String(lock.name ?? '');
  sink.add(`name:${name}\n`);
  const runList = Array.isArray(lock.run_list) ? lock.run_list : [];
  for (const item of runList) sink.add(`run-list-item:${item}\n`);
  const named = lock.named_run_lists;
  if (named && typeof named === 'object' && !Array.isArray(named)) {
    // Document order, as chef-cli iterates its Ruby hash (not JS order, which puts "1", "10" first).
    for (const list of orderedKeys(named)) {
      const items = (named as Record<string, unknown>)[list];
      if (!Array.isArray(items)) continue;
      for (const item of items) sink.add(`named-run-list:${list};run-list-item:${item}\n`);
    }
  }
  const cookbooks = lock.cookbook_locks;
  if (cookbooks && typeof cookbooks === 'object' && !Array.isArray(cookbooks)) {
    const entries = cookbooks as Record<string, unknown>;
    for (const cb of sortCodePoints(Object.keys(entries))) {
      const entry = entries[cb] as Record<string, unknown> | null;
      const id = entry && typeof entry === 'object' ? entry.identifier : undefined;
      sink.add(`cookbook:${cb};id:${id instanceof JsonNumber ? id.lexeme : String(id ?? '')}\n`);
    }
  }
  sink.add('default_attributes:');
  if (!writeCanonical(lock.default_attributes ?? {}, sink)) sink.add('null');
  sink.add('\noverride_attributes:');
  if (!writeCanonical(lock.override_attributes ?? {}, sink)) sink.add('null');
  sink.add('\n');
}

/** The text chef-cli hashes for a lock's revision id (`lib/chef-cli/policyfile_lock.rb`, `content_to_hash`). */
export function revisionIdText(lock: LockLike): string {
  const sink = new TextSink();
  writeRevisionText(lock, sink);
  return sink.end();
}

/** Chunks of about this many characters go to the hash as the revision text is written. */
const HASH_CHUNK = 1 << 16;

/**
 * chef-cli's revision id: SHA-256 of {@link revisionIdText}, hashed as it is written (a composed
 * lock's text is megabytes; it is never one string). Given the raw JSON text, float lexemes are kept
 * (`1.0e15` hashes as `1e+15`); given a parsed lock, whole numbers are taken as integers.
 */
export function computeRevisionId(document: string | PolicyLock): string {
  const lock = (typeof document === 'string' ? parseLossless(document) : document) as LockLike;
  const hash = sha256Stream();
  const sink = new TextSink(HASH_CHUNK, (chunk) => hash.update(chunk));
  writeRevisionText(lock, sink);
  hash.update(sink.end());
  return hash.digest();
}
