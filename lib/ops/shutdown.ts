/**
 * Shutdown hooks: what must stop before the process exits (the database
 * connection, background workers such as webhook delivery). The server runs
 * them after it stopped accepting and its in-flight requests finished.
 * Hooks run in reverse order of registration (last started, first stopped),
 * each bounded by the time left. Process state (lib/process-state.ts), like the metrics, so a hook
 * registered from the Next bundle is seen by the server.
 */
import { processState } from '../process-state';

export type ShutdownHook = () => void | Promise<void>;

const hooks = () => processState('shutdown.hooks', (): { name: string; fn: ShutdownHook }[] => []);

/** Registers `fn` to run at shutdown; returns a function that removes it (a worker that stopped on its own). */
export function onShutdown(name: string, fn: ShutdownHook): () => void {
  const entry = { name, fn };
  hooks().push(entry);
  return () => {
    const list = hooks();
    const i = list.indexOf(entry);
    if (i >= 0) list.splice(i, 1);
  };
}

/** Runs every hook (newest first), each within what is left of `timeoutMs`; returns the names of hooks that failed or timed out. */
export async function runShutdownHooks(timeoutMs: number): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  const failed: string[] = [];
  const list = hooks().splice(0).reverse();
  for (const h of list) {
    const left = deadline - Date.now();
    if (left <= 0) {
      failed.push(h.name);
      continue;
    }
    let timer: NodeJS.Timeout | undefined;
    const ok = await Promise.race([
      Promise.resolve()
        .then(h.fn)
        .then(
          () => true,
          () => false,
        ),
      new Promise<boolean>((r) => (timer = setTimeout(() => r(false), left))),
    ]);
    clearTimeout(timer);
    if (!ok) failed.push(h.name);
  }
  return failed;
}
