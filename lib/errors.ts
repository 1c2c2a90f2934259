/** An expected failure with an HTTP status and a message fit for users. */
export type AppErrorCode = 'bad_request' | 'unauthorized' | 'forbidden' | 'not_found' | 'conflict' | 'too_large' | 'unprocessable' | 'locked' | 'too_many_requests' | 'unavailable';

const STATUS: Record<AppErrorCode, number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  unprocessable: 422,
  /** A freeze window refuses changes into the stage (WebDAV's 423 Locked). */
  locked: 423,
  too_many_requests: 429,
  unavailable: 503,
};

export interface FieldError {
  path: string;
  message: string;
}

/** AppError's brand: the same symbol in every copy of this module (lib/process-state.ts says why there are two). */
const APP_ERROR = Symbol.for('policy-console.AppError');

export class AppError extends Error {
  /**
   * `instanceof AppError` holds for an AppError made by either copy of this
   * module in the process (the server's, Next's bundle's): one thrown through
   * process-wide state (a shared evaluation, a fetch slot) is still expected.
   */
  static [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && (value as { [APP_ERROR]?: unknown })[APP_ERROR] === true;
  }
  readonly [APP_ERROR] = true;
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
  if (isWriteConflictError(e)) return conflict('A concurrent request changed the same records at the same time (the database aborted this one); nothing was changed by this one. Retry.');
  if ((e as { code?: string } | null)?.code === 'P2028' && /start a transaction|Unable to start/i.test(String((e as { message?: unknown }).message))) {
    return new AppError('unavailable', 'The database has no free connection for this request; nothing was changed. Retry in a moment.', [], { retryAfter: 2 });
  }
  if (isBusyError(e)) return new AppError('unavailable', 'The database is busy with another write; nothing was changed. Retry in a moment.', [], { retryAfter: 2 });
  return null;
}

/**
 * PostgreSQL aborted the transaction for a deadlock or a serialization
 * failure (Prisma's P2034; SQLSTATE 40P01 / 40001). The client already ran
 * the transaction again a bounded number of times (lib/db/client.ts); this
 * one is the last attempt's failure, a 409 to retry.
 */
export function isWriteConflictError(e: unknown): boolean {
  for (let cur: unknown = e, i = 0; cur && i < 5; cur = (cur as { cause?: unknown }).cause, i++) {
    const c = cur as { code?: unknown; kind?: unknown; originalCode?: unknown };
    if (c.code === 'P2034' || c.kind === 'TransactionWriteConflict') return true;
    if (c.code === '40001' || c.code === '40P01' || c.originalCode === '40001' || c.originalCode === '40P01') return true;
  }
  return false;
}

/** SQLite's "database is locked/busy" (after the busy timeout), as better-sqlite3 or Prisma's adapter reports it. */
export function isBusyError(e: unknown): boolean {
  for (let cur: unknown = e, i = 0; cur && i < 5; cur = (cur as { cause?: unknown }).cause, i++) {
    const c = cur as { code?: unknown; message?: unknown; meta?: unknown };
    if (c.code === 'SQLITE_BUSY' || c.code === 'SQLITE_LOCKED' || c.code === 'SQLITE_BUSY_SNAPSHOT') return true;
    if (typeof c.message === 'string' && /database is (locked|busy)|SQLITE_BUSY/i.test(c.message)) return true;
    if (c.meta && /SQLITE_BUSY|database is locked/i.test(JSON.stringify(c.meta))) return true;
  }
  return false;
}
