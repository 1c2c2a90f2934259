import type { z } from 'zod';
import { badRequest } from '@/lib/errors';
import { zodErrors } from './zod-errors';

/** Parses service input; a 400 naming each field and rule otherwise. */
export function parseInput<S extends z.ZodType>(schema: S, raw: unknown): z.output<S> {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const errors = zodErrors(parsed.error);
    throw badRequest(errors[0].message, errors);
  }
  return parsed.data;
}
