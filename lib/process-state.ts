/**
 * Process-wide state: the one place a module keeps anything that lives
 * longer than a call (caches, memos, registries, connections, counters,
 * in-flight maps) — issue 40.
 *
 * A server process holds two copies of every module of lib/: the one
 * scripts/serve.ts loads through tsx (the Chef routes, lib/ops, the
 * background workers) and the one compiled into Next's server bundle (pages,
 * route handlers, server actions). A module-level `const cache = new Map()`
 * or `let cached` therefore exists twice, each copy filled and emptied on
 * its own: a pool registered by one is missing in the other (every /api/v1
 * read on PostgreSQL answered 500), and a cache invalidated in one is read
 * stale in the other. State kept here is one per process, whichever copy
 * asks: it lives on globalThis under a Symbol.for key, which both copies
 * (and every realm of this process) resolve to the same symbol.
 *
 *   const cache = processState('chef.signing.keys', () => new Map<string, KeyObject>());
 *
 * `init` runs once per process, in whichever copy asks first; what it makes
 * is shared as is, so keep values plain (maps, boxes, functions) and check
 * class membership by brand rather than `instanceof` on anything another
 * copy may have made (lib/errors.ts's AppError is branded). Keys name the
 * owner (`<module>.<what>`): each key is used in one module only, and
 * test/module-state.test.ts fails on module-level mutable state kept any
 * other way (with an allow-list of what is provably harmless, and why).
 */
const REGISTRY = Symbol.for('policy-console.process-state');

type Holder = { [REGISTRY]?: Map<string, unknown> };

function registry(): Map<string, unknown> {
  const g = globalThis as Holder;
  return (g[REGISTRY] ??= new Map());
}

/** The process's one value under `key`, made by `init` on first use. */
export function processState<T>(key: string, init: () => T): T {
  const r = registry();
  if (r.has(key)) return r.get(key) as T;
  const value = init();
  r.set(key, value);
  return value;
}

/** A mutable slot for a value that is replaced rather than mutated (a client, a reader); `undefined` until set. */
export interface Box<T> {
  current: T | undefined;
}

/** `processState(key, () => ({ current: undefined }))`: a process-wide slot. */
export function processBox<T>(key: string): Box<T> {
  return processState<Box<T>>(key, () => ({ current: undefined }));
}
