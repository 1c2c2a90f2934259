import { JsonNumber } from './json';

/** JSON with object keys sorted at every level (code-point order); arrays keep their order. Number lexemes are written as JS numbers. */
export function stableJson(value: unknown, indent?: number): string {
  return JSON.stringify(sortDeep(value), null, indent);
}

function sortDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortDeep);
  if (value instanceof JsonNumber) return value.valueOf();
  if (value && typeof value === 'object') {
    const src = value as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(src).sort()) {
      Object.defineProperty(out, key, { value: sortDeep(src[key]), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return value;
}
