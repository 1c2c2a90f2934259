import { db, type Tx } from '@/lib/db/client';

/**
 * Find-then-create under concurrent writers. Two transactions on PostgreSQL
 * (two instances, or two connections of one) can both find nothing and both
 * create: the unique key lets one commit and fails the other with P2002, and
 * the failed transaction is aborted as a whole. Running the whole transaction
 * again is then safe and gives the answer a one-at-a-time run would have
 * given: the second look finds what the winner created (an upload of the
 * same document becomes a 200, a name already taken a clear 409 naming it).
 * SQLite serializes writers, so there the retry never fires.
 *
 * Deadlocks and serialization failures (P2034) are retried by the database
 * client itself (lib/db/client.ts), which is why only P2002 is handled here.
 */

/** How many times an idempotent find-then-create runs before the last P2002 surfaces (→ a 409 saying to retry). */
export const UNIQUE_CONFLICT_ATTEMPTS = 3;

/** A unique-key violation raised by the database (not an AppError built from one). */
export function isUniqueViolation(e: unknown): boolean {
  for (let cur: unknown = e, i = 0; cur && i < 5; cur = (cur as { cause?: unknown }).cause, i++) {
    const c = cur as { code?: unknown; name?: unknown; originalCode?: unknown };
    if (c.name === 'AppError') return false;
    if (c.code === 'P2002' || c.originalCode === '23505' || c.code === '23505') return true;
  }
  return false;
}

/**
 * Runs `fn` (one whole transaction) again when it lost a race on a unique
 * key, up to `attempts` times with a short random pause. `fn` must have no
 * effect outside its transaction.
 */
export async function retryUniqueConflicts<T>(fn: () => Promise<T>, attempts = UNIQUE_CONFLICT_ATTEMPTS): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (e) {
      if (attempt >= attempts || !isUniqueViolation(e)) throw e;
      await new Promise((r) => setTimeout(r, 2 + Math.random() * 10 * attempt));
    }
  }
}

/** `db().$transaction(fn)`, run again when it lost a race on a unique key (see above). */
export function transaction<T>(fn: (tx: Tx) => Promise<T>, opts?: { timeout?: number; maxWait?: number }): Promise<T> {
  return retryUniqueConflicts(() => db().$transaction((tx) => fn(tx as Tx), opts));
}
