import type { ActionServerError } from './safe-action';

type ActionResult<T> = { data?: T; serverError?: ActionServerError; validationErrors?: unknown } | undefined;

/** Unwraps a next-safe-action result for React Query: data, or a thrown ActionServerError. */
export async function runAction<I, T>(action: (input: I) => Promise<ActionResult<T>>, input: I): Promise<T> {
  const res = await action(input);
  if (res?.serverError) throw res.serverError;
  if (res?.validationErrors) {
    throw { code: 'bad_request', message: 'Some fields are invalid: check the form and try again.', errors: [] } satisfies ActionServerError;
  }
  if (!res || res.data === undefined) throw { code: 'internal', message: 'The server returned no result.', errors: [] } satisfies ActionServerError;
  return res.data;
}

export function isActionError(e: unknown): e is ActionServerError {
  return !!e && typeof e === 'object' && 'code' in e && 'message' in e;
}

/** A message fit for a toast, whatever was thrown. */
export function errorMessage(e: unknown): string {
  if (isActionError(e)) return e.message;
  if (e instanceof Error) return e.message;
  return 'Something went wrong.';
}
