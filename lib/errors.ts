/** An expected failure with an HTTP status and a message fit for users. */
export type AppErrorCode = 'bad_request' | 'unauthorized' | 'forbidden' | 'not_found' | 'conflict' | 'too_large' | 'unprocessable';

const STATUS: Record<AppErrorCode, number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  unprocessable: 422,
};

export interface FieldError {
  path: string;
  message: string;
}

export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: AppErrorCode,
    message: string,
    readonly errors: FieldError[] = [],
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'AppError';
    this.status = STATUS[code];
  }
}

/**
 * Some Chef endpoints (keys) answer `{"error": "<text>"}` rather than an
 * array; an AppError carrying this detail is rendered that way on the Chef
 * routes (and the detail itself is not sent).
 */
export const CHEF_STRING_ERROR = 'chef_string_error';
export function chefStringError(code: AppErrorCode, message: string): AppError {
  return new AppError(code, message, [], { [CHEF_STRING_ERROR]: true });
}

export const badRequest = (message: string, errors: FieldError[] = []) => new AppError('bad_request', message, errors);
export const forbidden = (message = 'You do not have permission to do that.') => new AppError('forbidden', message);
export const notFound = (message: string) => new AppError('not_found', message);
export const conflict = (message: string, details?: Record<string, unknown>) => new AppError('conflict', message, [], details);

export function isAppError(e: unknown): e is AppError {
  return e instanceof AppError;
}

/**
 * Expected failures that surface as database errors: a unique-key violation
 * means a concurrent request created the same record first (409, retry).
 */
export function asAppError(e: unknown): AppError | null {
  if (isAppError(e)) return e;
  if ((e as { code?: string } | null)?.code === 'P2002') return conflict('A concurrent request created the same record first; nothing was changed by this one. Refresh and retry.');
  return null;
}
