import { isBusyError } from '@/lib/errors';
import { db } from '../client';

export async function databaseIsUp(): Promise<boolean> {
  try {
    await db().$queryRaw`SELECT 1`;
    return true;
  } catch {
    return false;
  }
}

export type WriteState = 'writable' | 'read-only' | 'busy' | 'down';

let cached: { at: number; state: WriteState } | null = null;
const CACHE_MS = 5_000;

/**
 * Whether the database takes writes (issue 17, item 15): an UPDATE that
 * matches no row still needs write access, so a read-only file, mount or
 * connection fails it at once. Another process holding the write lock is
 * "busy" (writable, contended). Cached briefly so health checks under load
 * do not queue for the lock.
 */
let inflight: Promise<WriteState> | null = null;

export async function databaseWriteState(now = Date.now()): Promise<WriteState> {
  if (cached && now - cached.at < CACHE_MS) return cached.state;
  // Concurrent health checks share one probe.
  inflight ??= probe(now).finally(() => (inflight = null));
  return inflight;
}

async function probe(now: number): Promise<WriteState> {
  let state: WriteState;
  try {
    await db().$executeRaw`UPDATE "LoginThrottle" SET "failures" = "failures" WHERE 1 = 0`;
    state = 'writable';
  } catch (e) {
    state = isBusyError(e) ? 'busy' : /readonly|read-only|SQLITE_READONLY/i.test(JSON.stringify(errorChain(e))) ? 'read-only' : 'down';
  }
  cached = { at: now, state };
  return state;
}

export function resetWriteStateCache(): void {
  cached = null;
}

function errorChain(e: unknown): string[] {
  const out: string[] = [];
  for (let cur: unknown = e, i = 0; cur && i < 5; cur = (cur as { cause?: unknown }).cause, i++) {
    const c = cur as { code?: unknown; message?: unknown; meta?: unknown };
    out.push(String(c.code ?? ''), String(c.message ?? ''), c.meta ? JSON.stringify(c.meta) : '');
  }
  return out;
}
