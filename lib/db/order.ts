/**
 * Orders text in the application, not the database: SQLite's BINARY
 * collation and PostgreSQL's (database-chosen, often linguistic) collation
 * disagree on case and punctuation ("Zeta" < "alpha" < "base-web" <
 * "base_app" in SQLite, not under en_US). Lists shown by name are sorted
 * with this after the query, so both databases show the same order.
 */
import { compareCodePoints } from '@/lib/domain/shared';

/** Code-point order: SQLite's BINARY collation (UTF-8 bytes) and PostgreSQL's "C". */
export function compareText(a: string, b: string): number {
  return compareCodePoints(a, b);
}

/** `rows` sorted (in place) by `key`, in code-point order; for `.then(sortedBy((r) => r.name))` on a query. */
export function sortedBy<T>(key: (row: T) => string): (rows: T[]) => T[] {
  return (rows) => rows.sort((a, b) => compareText(key(a), key(b)));
}
