import { sha256Hex } from './sha256';
import { canonicalJson, sortCodePoints } from '@/lib/domain/shared';
import { JsonNumber, orderedKeys } from './json';
import { parseLossless } from './lossless';
import type { PolicyLock } from './types';

type LockLike = Record<string, unknown>;

/**
 * The text chef-cli hashes for a lock's revision id
 * (`lib/chef-cli/policyfile_lock.rb`, `content_to_hash`).
 */
export function revisionIdText(lock: LockLike): string {
  const name = typeof lock.name === 'string' ? lock.name : String(lock.name ?? '');
  let text = `name:${name}\n`;
  const runList = Array.isArray(lock.run_list) ? lock.run_list : [];
  for (const item of runList) text += `run-list-item:${item}\n`;
  const named = lock.named_run_lists;
  if (named && typeof named === 'object' && !Array.isArray(named)) {
    // Document order, as chef-cli iterates its Ruby hash (not JS order, which puts "1", "10" first).
    for (const list of orderedKeys(named)) {
      const items = (named as Record<string, unknown>)[list];
      if (!Array.isArray(items)) continue;
      for (const item of items) text += `named-run-list:${list};run-list-item:${item}\n`;
    }
  }
  const cookbooks = lock.cookbook_locks;
  if (cookbooks && typeof cookbooks === 'object' && !Array.isArray(cookbooks)) {
    const entries = cookbooks as Record<string, unknown>;
    for (const cb of sortCodePoints(Object.keys(entries))) {
      const entry = entries[cb] as Record<string, unknown> | null;
      const id = entry && typeof entry === 'object' ? entry.identifier : undefined;
      text += `cookbook:${cb};id:${id instanceof JsonNumber ? id.lexeme : String(id ?? '')}\n`;
    }
  }
  text += `default_attributes:${canonicalJson(lock.default_attributes ?? {})}\n`;
  text += `override_attributes:${canonicalJson(lock.override_attributes ?? {})}\n`;
  return text;
}

/**
 * chef-cli's revision id: SHA-256 of {@link revisionIdText}. Given the raw JSON
 * text, float lexemes are kept (`1.0e15` hashes as `1e+15`); given a parsed
 * lock, whole numbers are taken as integers.
 */
export function computeRevisionId(document: string | PolicyLock): string {
  const lock = (typeof document === 'string' ? parseLossless(document) : document) as LockLike;
  return sha256Hex(revisionIdText(lock));
}
