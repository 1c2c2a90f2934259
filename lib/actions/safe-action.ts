import 'server-only';
import { createSafeActionClient } from 'next-safe-action';
import { currentAccess } from '@/lib/auth/session';
import { AppError, asAppError, type FieldError } from '@/lib/errors';

export interface ActionServerError {
  code: string;
  message: string;
  errors: FieldError[];
  details?: Record<string, unknown>;
}

/** Expected failures reach the UI with their code and field errors; anything else is logged and shown generically. */
export const actionClient = createSafeActionClient({
  handleServerError(e): ActionServerError {
    const known = asAppError(e);
    if (known) return { code: known.code, message: known.message, errors: known.errors, details: known.details };
    console.error('[action] unexpected error', e);
    return { code: 'internal', message: 'Something went wrong on the server. Try again; if it persists, check the server log.', errors: [] };
  },
});

/** Every mutation goes through this: a valid session, and permissions read from the database. */
export const authedAction = actionClient.use(async ({ next }) => {
  const access = await currentAccess();
  if (!access) throw new AppError('unauthorized', 'Your session has ended. Sign in again.');
  return next({ ctx: { access } });
});
