import { useDeferredValue, useMemo } from 'react';
import { orderDirectives, type OrderDirectivesInput, type OrderDirectivesResult } from '@/lib/domain/ordering';
import { ZOrderDirectivesInput } from '@/lib/validation/previews';
import { zodErrors } from '@/lib/validation/zod-errors';

export type OrderingPreview = { data: OrderDirectivesResult; errors: null } | { data: null; errors: { path: string; message: string }[] };

/**
 * The ordering engine run in the browser: the input is all local (the model
 * being edited), so the preview needs no request. The same schema as
 * POST /api/v1/ordering/preview checks it first, with the same messages.
 * Deferred: a large model recomputes after the keystroke has rendered.
 */
export function useOrderingPreview(input: OrderDirectivesInput): OrderingPreview & { stale: boolean } {
  const deferred = useDeferredValue(input);
  const result = useMemo((): OrderingPreview => {
    const parsed = ZOrderDirectivesInput.safeParse(deferred);
    if (!parsed.success) return { data: null, errors: zodErrors(parsed.error) };
    return { data: orderDirectives(parsed.data), errors: null };
  }, [deferred]);
  return { ...result, stale: deferred !== input };
}
