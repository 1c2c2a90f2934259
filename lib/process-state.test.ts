/**
 * Issue 40: two copies of a module in one process (scripts/serve.ts's and Next's bundle's) share process state.
 * vi.resetModules() gives the next import a fresh copy of every module, as the second bundle does.
 */
import { describe, expect, it, vi } from 'vitest';

async function freshCopy<T>(load: () => Promise<T>): Promise<T> {
  vi.resetModules();
  return load();
}

describe('processState', () => {
  it('is one value per key for every copy of the module', async () => {
    const a = await freshCopy(() => import('./process-state'));
    const b = await freshCopy(() => import('./process-state'));
    expect(a).not.toBe(b);
    const key = `test.shared-${Math.random()}`;
    const made = a.processState(key, () => new Map<string, number>());
    made.set('x', 1);
    expect(b.processState(key, () => new Map<string, number>())).toBe(made);
    const box = a.processBox<string>(`${key}.box`);
    box.current = 'set by a';
    expect(b.processBox<string>(`${key}.box`).current).toBe('set by a');
  });

  it("lets a copy of lib/db/client.ts know a client another copy made (its provider, its pool's state)", async () => {
    const made = await freshCopy(() => import('./db/client'));
    const client = made.createDb('file:/nonexistent/never-opened.db');
    const other = await freshCopy(() => import('./db/client'));
    expect(other).not.toBe(made);
    expect(other.poolStats(client)).toEqual([{ labels: { state: 'total' }, value: 1 }]);
    made.installDb(client, 'file:/nonexistent/never-opened.db');
    vi.stubEnv('DATABASE_URL', 'file:/nonexistent/never-opened.db');
    try {
      expect(other.db()).toBe(client);
    } finally {
      vi.unstubAllEnvs();
      const shared = await import('./process-state');
      shared.processBox('db.client').current = undefined;
    }
  });

  it('keeps `instanceof AppError` true for an AppError made by another copy', async () => {
    const a = await freshCopy(() => import('./errors'));
    const b = await freshCopy(() => import('./errors'));
    expect(a.AppError).not.toBe(b.AppError);
    const e = a.notFound('gone');
    expect(e instanceof b.AppError).toBe(true);
    expect(b.isAppError(e)).toBe(true);
    expect(new Error('x') instanceof b.AppError).toBe(false);
  });
});
