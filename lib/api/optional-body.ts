import type { z } from 'zod';
import { AppError } from '@/lib/errors';
import { zodErrors } from '@/lib/validation/zod-errors';

/**
 * An optional JSON body (empty: no fields) read as text and parsed with the contract's schema:
 * for actions whose every field is optional (approve, the ring actions). 400 naming the field otherwise.
 */
export function parseOptionalJsonBody<S extends z.ZodType>(schema: S, text: string): z.output<S> | Record<string, never> {
  if (!text.trim()) return {};
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new AppError('bad_request', `Request body is not valid JSON: ${(e as Error).message}`, [{ path: '', message: 'Body must be valid JSON' }]);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const errors = zodErrors(parsed.error);
    throw new AppError('bad_request', errors[0].message, errors);
  }
  return parsed.data;
}
