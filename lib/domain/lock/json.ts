/**
 * JSON helpers the lock engine needs beyond JSON.parse: a depth guard that runs
 * before parsing, JSON pointers, key order and lexeme-keeping copies and writes.
 * The parser that keeps number lexemes (so a float written as `1.0e15` stays a
 * float when hashed) is `parseLossless` in lossless.ts.
 */

import { JsonNumber } from '@/lib/domain/shared/json-number';

export { JsonNumber };

/**
 * Document order of an object's keys, kept by {@link parseLossless} (and by the merge) when it differs
 * from `Object.keys` order: plain JS objects move integer-like keys (`"1"`, `"10"`) to the front, while
 * chef-cli (Ruby hashes) keeps insertion order, and hashes `named_run_lists` in that order.
 * A non-enumerable symbol, so `toEqual`, spreads and `JSON.stringify` ignore it.
 */
export const KEY_ORDER: unique symbol = Symbol.for('policy-console.key-order');

const ARRAY_INDEX = /^(?:0|[1-9]\d{0,9})$/;
/** Would JS move this key to the front of `Object.keys`? */
export const isIndexLikeKey = (k: string): boolean => ARRAY_INDEX.test(k) && Number(k) < 4294967295;

/** The object's keys in document order. */
export function orderedKeys(obj: object): string[] {
  const order = (obj as { [KEY_ORDER]?: string[] })[KEY_ORDER];
  if (!order) return Object.keys(obj);
  // Keys added or removed after parsing: keep the recorded order for those still present, new ones after.
  const own = Object.keys(obj);
  if (order.length === own.length && order.every((k) => Object.prototype.hasOwnProperty.call(obj, k))) return order;
  const present = order.filter((k) => Object.prototype.hasOwnProperty.call(obj, k));
  const seen = new Set(present);
  return [...present, ...own.filter((k) => !seen.has(k))];
}

/** Records `keys` as the document order of `obj` (only stored when it differs from `Object.keys`). */
export function setKeyOrder<T extends object>(obj: T, keys: string[]): T {
  if (keys.some(isIndexLikeKey)) Object.defineProperty(obj, KEY_ORDER, { value: [...keys], enumerable: false, writable: true, configurable: true });
  return obj;
}

/** A deep copy of parsed JSON that keeps {@link JsonNumber} lexemes and key order (structuredClone loses both). */
export function cloneLossless<T>(value: T): T {
  if (Array.isArray(value)) return value.map(cloneLossless) as T;
  if (value instanceof JsonNumber || value === null || typeof value !== 'object') return value;
  const keys = orderedKeys(value);
  const out: Record<string, unknown> = {};
  for (const k of keys) defineKey(out, k, cloneLossless((value as Record<string, unknown>)[k]));
  return setKeyOrder(out, keys) as T;
}

/**
 * JSON text like `JSON.stringify(value, null, indent)`, but number lexemes ({@link JsonNumber}) are
 * written as they were read (`1.0e+15`, `-0.0`, 31-digit integers) and keys keep document order
 * ({@link orderedKeys}). Use it for every lock the console writes.
 */
export function serializeJson(value: unknown, indent = 0): string {
  const pad = indent > 0 ? ' '.repeat(indent) : '';
  const write = (v: unknown, at: string): string => {
    if (v === null || v === undefined) return 'null';
    if (v instanceof JsonNumber) return v.lexeme;
    if (typeof v === 'number') return Number.isFinite(v) ? JSON.stringify(v) : 'null';
    if (typeof v === 'string') return JSON.stringify(v);
    if (typeof v === 'boolean') return v ? 'true' : 'false';
    if (typeof v === 'bigint') return v.toString();
    const inner = pad ? at + pad : '';
    const nl = pad ? '\n' : '';
    if (Array.isArray(v)) {
      if (!v.length) return '[]';
      return '[' + nl + v.map((x) => inner + write(x === undefined ? null : x, inner)).join(',' + nl) + nl + at + ']';
    }
    if (typeof v === 'object') {
      const o = v as Record<string, unknown>;
      const keys = orderedKeys(o).filter((k) => o[k] !== undefined && typeof o[k] !== 'function');
      if (!keys.length) return '{}';
      const sep = pad ? ': ' : ':';
      return '{' + nl + keys.map((k) => inner + JSON.stringify(k) + sep + write(o[k], inner)).join(',' + nl) + nl + at + '}';
    }
    return 'null';
  };
  return write(value, '');
}

/** The deepest nesting of arrays and objects in a JSON text (strings are skipped). */
export function jsonDepth(text: string, stopAbove = Infinity): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
      continue;
    }
    if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      depth++;
      if (depth > max) {
        max = depth;
        if (max > stopAbove) return max;
      }
    } else if (c === 125 || c === 93) depth--;
  }
  return max;
}

/** JSON pointers come from the one RFC 6901 builder (shared/json-pointer). */
export { escapePointerToken as pointerToken } from '@/lib/domain/shared/json-pointer';
import { jsonPointer } from '@/lib/domain/shared/json-pointer';
export function pointer(...tokens: (string | number)[]): string {
  return jsonPointer(tokens);
}

/** Sets an own data property, even for keys such as `__proto__`. */
export function defineKey(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

