import 'server-only';
import { revalidatePath } from 'next/cache';
import { createSafeActionClient } from 'next-safe-action';
import type { z } from 'zod';
import type { Access } from '@/lib/auth/permissions';
import { currentAccess } from '@/lib/authn/session';
import { AppError, asAppError, type FieldError } from '@/lib/errors';
import { formErrorsFrom, type FormErrors } from './form-errors';
import { assertInputDepth } from '@/lib/validation/limits';

export type { FormErrors } from './form-errors';

/**
 * What a failed action answers (and `runAction` throws): the code and a message fit for a toast,
 * the field errors as JSON pointers (`errors`, as the HTTP API sends them), and the same errors
 * keyed by form field (`fieldErrors`, `formError`: see lib/actions/form-errors.ts) for forms.
 */
export interface ActionServerError extends FormErrors {
  code: string;
  message: string;
  errors: FieldError[];
  details?: Record<string, unknown>;
}

/** Expected failures reach the UI with their code and field errors; anything else is logged and shown generically. */
export const actionClient = createSafeActionClient({
  handleServerError(e): ActionServerError {
    const known = asAppError(e);
    if (known) return { code: known.code, message: known.message, errors: known.errors, details: known.details, ...formErrorsFrom(known.message, known.errors) };
    console.error('[action] unexpected error', e);
    const message = 'Something went wrong on the server. Try again; if it persists, check the server log.';
    return { code: 'internal', message, errors: [], fieldErrors: {}, formError: message };
  },
});

/** Every mutation goes through this: a valid session, and permissions read from the database. */
export const authedAction = actionClient.use(async ({ next, clientInput }) => {
  const access = await currentAccess();
  if (!access) throw new AppError('unauthorized', 'Your session has ended. Sign in again.');
  // Issue 28: the same depth limit as every HTTP body, before a schema or a service walks the input.
  assertInputDepth(clientInput);
  return next({ ctx: { access } });
});

/** Where an action's change shows: a path, or a path and 'layout' for everything under it. */
type Revalidate = string | readonly [path: string, type: 'layout'];

/**
 * An action that is one service call: `input` is parsed (after the session and the depth limit of `authedAction`),
 * `run` is the service with the caller's access, then the pages that show the change are revalidated.
 */
export function serviceAction<S extends z.ZodType, R>({ input, run, revalidate }: { input: S; run: (access: Access, input: z.output<S>) => Promise<R>; revalidate: Revalidate }) {
  return authedAction.inputSchema(input).action(async ({ parsedInput, ctx }) => {
    const result = await run(ctx.access, parsedInput as z.output<S>);
    if (typeof revalidate === 'string') revalidatePath(revalidate);
    else revalidatePath(revalidate[0], revalidate[1]);
    return result;
  });
}
