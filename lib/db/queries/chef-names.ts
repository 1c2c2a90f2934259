import { providerOf, type Tx } from '../client';

/**
 * Issue 41: serializes the claims of one Chef actor name for the rest of the transaction. User names are
 * server-wide and client names per organization, so a user's claim and a client's claim of the same name hold
 * different keys and the unique key alone cannot keep them apart: on PostgreSQL a transaction-scoped advisory
 * lock on the name makes "look, then claim" one step across instances; SQLite runs one writer at a time already.
 */
export async function lockChefName(tx: Tx, name: string): Promise<void> {
  if (providerOf(tx) !== 'postgresql') return;
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`policy-console:chef-name:${name}`}))`;
}
