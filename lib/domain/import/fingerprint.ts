/**
 * Issue 42: what the importer remembers of an object (ImportedObject) and what it shows of a conflict.
 * Pure. A fingerprint is the SHA-256 of the value's JSON with object keys in code-point order and numbers
 * as written (`1.0` and `1` differ, as they do to chef-client); `differingPaths` names where two values part.
 */
import { sha256Hex } from '../lock/sha256';
import { sortCodePoints } from '@/lib/domain/shared/compare';
import { JsonNumber } from '@/lib/domain/shared/json-number';
import { escapePointerToken } from '@/lib/domain/shared/json-pointer';

function write(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (v instanceof JsonNumber) return v.lexeme;
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (Array.isArray(v)) return '[' + v.map(write).join(',') + ']';
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return '{' + sortCodePoints(Object.keys(o).filter((k) => o[k] !== undefined)).map((k) => JSON.stringify(k) + ':' + write(o[k])).join(',') + '}';
  }
  return 'null';
}

/** The value's JSON with sorted keys and number lexemes kept: equal exactly when the values are. */
export function fingerprintText(value: unknown): string {
  return write(value);
}

/** SHA-256 (hex) of {@link fingerprintText}. */
export function fingerprint(value: unknown): string {
  return sha256Hex(write(value));
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof JsonNumber);

/**
 * JSON pointers of the places where `a` and `b` differ, objects compared member by member (a member on one side
 * only is a difference at its pointer), arrays and scalars as wholes; at most `max` (then a last "…" entry).
 */
export function differingPaths(a: unknown, b: unknown, max = 12): string[] {
  const out: string[] = [];
  const walk = (x: unknown, y: unknown, at: string) => {
    if (out.length > max) return;
    if (isObject(x) && isObject(y)) {
      for (const k of sortCodePoints([...new Set([...Object.keys(x), ...Object.keys(y)])])) walk(x[k], y[k], `${at}/${escapePointerToken(k)}`);
      return;
    }
    if (write(x) !== write(y)) out.push(at || '/');
  };
  walk(a, b, '');
  return out.length > max ? [...out.slice(0, max), '…'] : out;
}
