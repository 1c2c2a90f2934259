import { isBusyError } from '@/lib/errors';
import { db } from '../client';
import { processState } from '@/lib/process-state';

export async function databaseIsUp(): Promise<boolean> {
  try {
    await db().$queryRaw`SELECT 1`;
    return true;
  } catch {
    return false;
  }
}

export type WriteState = 'writable' | 'read-only' | 'busy' | 'down';

const CACHE_MS = 5_000;

/**
 * Whether the database takes writes (issue 17, item 15): an UPDATE that
 * matches no row still needs write access, so a read-only file, mount or
 * connection fails it at once. Another process holding the write lock is
 * "busy" (writable, contended). Cached briefly so health checks under load
 * do not queue for the lock. The cache and the probe in flight are process
 * state (lib/process-state.ts): one for the server's copy and Next's.
 */
const probes = processState('health.write-state', () => ({ cached: null as { at: number; state: WriteState } | null, inflight: null as Promise<WriteState> | null }));

export async function databaseWriteState(now = Date.now()): Promise<WriteState> {
  const { cached } = probes;
  if (cached && now - cached.at < CACHE_MS) return cached.state;
  // Concurrent health checks share one probe.
  probes.inflight ??= probe(now).finally(() => (probes.inflight = null));
  return probes.inflight;
}

async function probe(now: number): Promise<WriteState> {
  let state: WriteState;
  try {
    await db().$executeRaw`UPDATE "LoginThrottle" SET "failures" = "failures" WHERE 1 = 0`;
    state = 'writable';
  } catch (e) {
    state = isBusyError(e) ? 'busy' : /readonly|read-only|SQLITE_READONLY/i.test(JSON.stringify(errorChain(e))) ? 'read-only' : 'down';
  }
  probes.cached = { at: now, state };
  return state;
}

export function resetWriteStateCache(): void {
  probes.cached = null;
}

function errorChain(e: unknown): string[] {
  const out: string[] = [];
  for (let cur: unknown = e, i = 0; cur && i < 5; cur = (cur as { cause?: unknown }).cause, i++) {
    const c = cur as { code?: unknown; message?: unknown; meta?: unknown };
    out.push(String(c.code ?? ''), String(c.message ?? ''), c.meta ? JSON.stringify(c.meta) : '');
  }
  return out;
}
