import { jsonDepth } from '@/lib/domain';
import { AppError, badRequest } from '@/lib/errors';

/**
 * One set of document limits for every entry point (issue 17, item 8): what
 * is accepted (uploads, compose, cookbook promotion, server actions) and what
 * is stored must both fit, so every stored revision can be uploaded again.
 */
export const MAX_DEPTH = 64;

/** Nesting a request envelope may add around a lock (compose: body → includes → [i] → source → lock). */
export const ENVELOPE_DEPTH = 8;

/** The largest document or request body, in bytes (MAX_BODY_BYTES, default 8 MiB). */
export function maxDocumentBytes(): number {
  const n = Number(process.env.MAX_BODY_BYTES);
  return Number.isFinite(n) && n > 0 ? n : 8 * 1024 * 1024;
}

/** The nesting depth of a parsed value, without recursion (a deep value must not overflow the stack); stops counting above `stopAbove`. */
export function valueDepth(value: unknown, stopAbove = Infinity): number {
  let max = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    const depth = d + 1;
    if (depth > max) {
      max = depth;
      if (max > stopAbove) return max;
    }
    for (const child of Array.isArray(v) ? v : Object.values(v as object)) if (child !== null && typeof child === 'object') stack.push([child, depth]);
  }
  return max;
}

/** Refuses a parsed input nested deeper than a lock may be plus `envelope` levels. */
export function assertInputDepth(value: unknown, envelope = ENVELOPE_DEPTH, path = ''): void {
  const limit = MAX_DEPTH + envelope;
  if (valueDepth(value, limit) > limit) throw badRequest(`Input nests deeper than ${limit} levels`, [{ path, message: `Nesting deeper than ${limit} levels is refused` }]);
}

/** What may be stored as a revision: at most MAX_DEPTH deep and maxDocumentBytes() long, the limits an upload of it would meet. */
export function assertStorable(text: string, what = 'The resulting document'): void {
  const bytes = Buffer.byteLength(text);
  const limit = maxDocumentBytes();
  if (bytes > limit) throw new AppError('too_large', `${what} is ${bytes} bytes; the limit is ${limit} bytes (MAX_BODY_BYTES)`, [{ path: '', message: `larger than ${limit} bytes` }]);
  if (jsonDepth(text, MAX_DEPTH) > MAX_DEPTH) throw badRequest(`${what} nests deeper than ${MAX_DEPTH} levels`, [{ path: '', message: `Nesting deeper than ${MAX_DEPTH} levels is refused` }]);
}

/**
 * Issue 28: the one depth limit on every JSON body of every surface (the /api/v1 route wrapper, the Chef
 * routes' bodies, nodes included, and server actions' inputs): a lock may nest MAX_DEPTH levels and a
 * request envelope ENVELOPE_DEPTH more. Checked on the text before anything recursive sees the value.
 */
export const MAX_BODY_DEPTH = MAX_DEPTH + ENVELOPE_DEPTH;

/** 400 when a JSON text nests deeper than MAX_BODY_DEPTH. */
export function assertBodyDepth(text: string, what = 'Request body'): void {
  if (jsonDepth(text, MAX_BODY_DEPTH) > MAX_BODY_DEPTH) throw badRequest(`${what} nests deeper than ${MAX_BODY_DEPTH} levels`, [{ path: '', message: `Nesting deeper than ${MAX_BODY_DEPTH} levels is refused` }]);
}
