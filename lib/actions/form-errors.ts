/**
 * The one error shape forms show (pure; used on the server and in the browser):
 *
 *   { fieldErrors: { [field]: string[] }, formError?: string }
 *
 * - `fieldErrors` keys are the input field's path as the action received it, dotted
 *   (`reason`, `expectedRevisionId`, `includes.0.source.path`); each message names the rule
 *   ("is required for a rollback", "is at most 1000 characters").
 * - `formError` is a message about the whole form (a refusal, a conflict, a rule not tied to
 *   one field); absent when the field errors say it all.
 *
 * Every failed action yields it: a service's AppError (its JSON-pointer field errors) through
 * `handleServerError`, and next-safe-action's input-schema failures through `runAction`.
 */
import { parseJsonPointer } from '@/lib/domain/shared/json-pointer';

export interface FormErrors {
  fieldErrors: Record<string, string[]>;
  formError?: string;
}

/** A field error's JSON pointer as a form field key: `/includes/0/name` → `includes.0.name`; the whole input → ''. */
export function fieldKey(pointer: string): string {
  try {
    return parseJsonPointer(pointer).join('.');
  } catch {
    return pointer;
  }
}

/** The rule alone, without the field name the API message starts with ("reason is required" → "is required"). */
function ruleOf(key: string, message: string): string {
  return key && message.startsWith(key + ' ') ? message.slice(key.length + 1) : message;
}

/** From a message and JSON-pointer field errors (an AppError, an API error body). */
export function formErrorsFrom(message: string, errors: readonly { path: string; message: string }[]): FormErrors {
  const fieldErrors: Record<string, string[]> = {};
  const formLevel: string[] = [];
  for (const e of errors) {
    const key = fieldKey(e.path);
    if (!key) {
      formLevel.push(e.message);
      continue;
    }
    (fieldErrors[key] ??= []).push(ruleOf(key, e.message));
  }
  const hasFields = Object.keys(fieldErrors).length > 0;
  // A message that only repeats the first field error is not shown twice.
  const firstField = errors.find((e) => fieldKey(e.path));
  const formError = formLevel[0] ?? (hasFields && firstField?.message === message ? undefined : message);
  return formError ? { fieldErrors, formError } : { fieldErrors };
}

type Formatted = { _errors?: string[] } & { [key: string]: unknown };

/** next-safe-action's default ("formatted") validation errors: `{ _errors, field: { _errors, … } }`. */
export function formErrorsFromValidation(validationErrors: unknown): FormErrors {
  const fieldErrors: Record<string, string[]> = {};
  let formError: string | undefined;
  const walk = (node: Formatted, path: string[]) => {
    for (const m of node._errors ?? []) {
      const rule = /received undefined/.test(m) ? 'is required' : m.replace(/^Invalid input: /, '');
      if (path.length) (fieldErrors[path.join('.')] ??= []).push(rule);
      else formError ??= rule;
    }
    for (const [k, v] of Object.entries(node)) if (k !== '_errors' && v && typeof v === 'object') walk(v as Formatted, [...path, k]);
  };
  if (validationErrors && typeof validationErrors === 'object') walk(validationErrors as Formatted, []);
  if (!formError && !Object.keys(fieldErrors).length) formError = 'Some fields are invalid.';
  return formError ? { fieldErrors, formError } : { fieldErrors };
}
