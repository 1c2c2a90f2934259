import type { ActionServerError } from './safe-action';
import { formErrorsFromValidation, type FormErrors } from './form-errors';
import { jsonPointer } from '@/lib/domain/shared/json-pointer';

type ActionResult<T> = { data?: T; serverError?: ActionServerError; validationErrors?: unknown } | undefined;

/** Unwraps a next-safe-action result for React Query: data, or a thrown ActionServerError. */
export async function runAction<I, T>(action: (input: I) => Promise<ActionResult<T>>, input: I): Promise<T> {
  const res = await action(input);
  if (res?.serverError) throw res.serverError;
  if (res?.validationErrors) {
    const form = formErrorsFromValidation(res.validationErrors);
    const first = Object.entries(form.fieldErrors)[0];
    const message = form.formError ?? (first ? `Some fields are invalid: ${first[0]} ${first[1][0]}` : 'Some fields are invalid: check the form and try again.');
    throw { code: 'bad_request', message, errors: Object.entries(form.fieldErrors).flatMap(([k, ms]) => ms.map((m) => ({ path: jsonPointer(k.split('.')), message: `${k} ${m}` }))), ...form } satisfies ActionServerError;
  }
  if (!res || res.data === undefined) throw { code: 'internal', message: 'The server returned no result.', errors: [], fieldErrors: {}, formError: 'The server returned no result.' } satisfies ActionServerError;
  return res.data;
}

/** The form error shape of anything thrown by `runAction` (or anything else: then the message is a form error). */
export function formErrorsOf(e: unknown): FormErrors {
  if (isActionError(e)) return { fieldErrors: e.fieldErrors ?? {}, ...(e.formError ? { formError: e.formError } : !e.fieldErrors || !Object.keys(e.fieldErrors).length ? { formError: e.message } : {}) };
  return { fieldErrors: {}, formError: errorMessage(e) };
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
