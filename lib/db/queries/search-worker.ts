/**
 * Issue 41 (finding 5): Chef search on SQLite, off the event loop. better-sqlite3 runs a statement synchronously,
 * so one expensive query (450 leading-wildcard clauses at 300k index entries: 49.6 s) held every other request of
 * the process. The search's read statements run instead on worker threads, each with a read-only connection of
 * its own to the database file (write-ahead log: it reads the last committed state and never waits for a writer),
 * so the server keeps answering while a search runs; and each statement stops at the search's deadline: the
 * statements call `search_deadline()` on the rows they scan (lib/db/queries/search.ts), a function of the worker's
 * that throws once the deadline has passed, which ends the statement and frees the thread. A worker that does not
 * answer shortly after the deadline (a statement between two calls) is terminated and replaced.
 *
 * SEARCH_WORKERS threads per database file (default 2), started on first use; searches beyond them wait in turn
 * (their deadline keeps counting). The worker's code is plain JavaScript given to the thread as text, so it runs
 * the same under tsx, Next's server bundle and the tests.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { onDisconnect } from '../client';
import { processState } from '@/lib/process-state';

/** The SQL function a statement calls on the rows it scans; it throws once the search's deadline has passed. */
export const DEADLINE_FUNCTION = 'search_deadline';
/** What the worker's deadline function throws (its message), so the caller tells a deadline from another failure. */
export const DEADLINE_MESSAGE = 'SEARCH_DEADLINE_PASSED';

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { readonly: true, fileMustExist: true });
db.pragma('busy_timeout = 10000');
let deadline = Infinity;
db.function(${JSON.stringify(DEADLINE_FUNCTION)}, { deterministic: false }, () => {
  if (Date.now() > deadline) throw new Error(${JSON.stringify(DEADLINE_MESSAGE)});
  return 1;
});
const statements = new Map();
parentPort.on('message', (m) => {
  deadline = m.deadline;
  try {
    let s = statements.get(m.sql);
    if (!s) {
      if (statements.size >= 500) statements.clear();
      s = db.prepare(m.sql);
      statements.set(m.sql, s);
    }
    parentPort.postMessage({ id: m.id, rows: s.all(...m.params) });
  } catch (e) {
    parentPort.postMessage({ id: m.id, error: String((e && e.message) || e) });
  }
});
`;

/** A search statement that ran past its deadline (the caller answers 400 naming SEARCH_TIMEOUT_MS). */
export class SearchDeadlineError extends Error {
  constructor() {
    super('search deadline passed');
    this.name = 'SearchDeadlineError';
  }
}

/**
 * Whether `e` is a SearchDeadlineError, by its name: the pools are one per process (lib/process-state.ts), so the
 * error may come from the other copy of this module, where `instanceof` would answer false.
 */
export function isSearchDeadline(e: unknown): boolean {
  return e instanceof Error && e.name === 'SearchDeadlineError';
}

interface Job {
  id: number;
  sql: string;
  params: readonly unknown[];
  deadline: number;
  resolve: (rows: unknown[]) => void;
  reject: (e: Error) => void;
}

/** How long past the deadline a worker may stay silent before it is terminated (a statement between two checks). */
const GRACE_MS = 1000;

class Slot {
  worker: Worker | null = null;
  job: Job | null = null;
  timer: NodeJS.Timeout | null = null;
  constructor(
    private readonly file: string,
    private readonly next: () => void,
  ) {}

  private start(): Worker {
    const driver = createRequire(path.join(process.cwd(), 'package.json')).resolve('better-sqlite3');
    const w = new Worker(WORKER_SOURCE, { eval: true, workerData: { file: this.file, driver } });
    w.unref();
    w.on('message', (m: { id: number; rows?: unknown[]; error?: string }) => {
      const job = this.job;
      if (!job || job.id !== m.id) return;
      this.finish();
      if (m.error === undefined) job.resolve(m.rows ?? []);
      else job.reject(m.error.includes(DEADLINE_MESSAGE) ? new SearchDeadlineError() : new Error(m.error));
    });
    w.on('error', (e) => {
      if (this.worker === w) this.fail(e);
    });
    w.on('exit', () => {
      // Only the current thread's exit fails its job (a thread ended past a deadline has had its job taken away).
      if (this.worker !== w) return;
      this.worker = null;
      this.fail(new Error('search worker exited'));
    });
    return w;
  }

  private finish() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.job = null;
    this.next();
  }

  private fail(e: Error) {
    const job = this.job;
    if (!job) return;
    this.finish();
    job.reject(e);
  }

  run(job: Job) {
    this.job = job;
    this.worker ??= this.start();
    this.timer = setTimeout(
      () => {
        // Silent past the deadline: end the thread (a new one starts for the next statement).
        const w = this.worker;
        this.worker = null;
        const j = this.job;
        this.finish();
        j?.reject(new SearchDeadlineError());
        void w?.terminate();
      },
      Math.max(0, job.deadline - Date.now()) + GRACE_MS,
    );
    this.timer.unref();
    this.worker.postMessage({ id: job.id, sql: job.sql, params: job.params, deadline: job.deadline });
  }

  close() {
    void this.worker?.terminate();
    this.worker = null;
  }
}

class Pool {
  private readonly slots: Slot[];
  private readonly queue: Job[] = [];
  private seq = 0;
  constructor(file: string, size: number) {
    this.slots = Array.from({ length: size }, () => new Slot(file, () => this.pump()));
  }
  private pump() {
    for (const slot of this.slots) {
      if (slot.job) continue;
      const job = this.queue.shift();
      if (!job) return;
      if (Date.now() > job.deadline) {
        job.reject(new SearchDeadlineError());
        continue;
      }
      slot.run(job);
    }
  }
  all(sql: string, params: readonly unknown[], deadline: number): Promise<unknown[]> {
    return new Promise((resolve, reject) => {
      this.queue.push({ id: ++this.seq, sql, params, deadline, resolve, reject });
      this.pump();
    });
  }
  close() {
    for (const s of this.slots) s.close();
  }
}

function workerCount(): number {
  const n = Number(process.env.SEARCH_WORKERS);
  return Number.isInteger(n) && n > 0 ? Math.min(n, 16) : 2;
}

/** The worker pools, one per database file and per process (both copies of this module share them). */
const pools = processState('search-worker.pools', () => new Map<string, Pool>());

/** Runs one read statement of a search against the SQLite file `file` on a worker thread; rejects with SearchDeadlineError past `deadline` (epoch ms). */
export function offThreadAll<T>(file: string, sql: string, params: readonly unknown[], deadline: number): Promise<T[]> {
  let pool = pools.get(file);
  if (!pool) {
    pool = new Pool(file, workerCount());
    pools.set(file, pool);
  }
  return pool.all(sql, params, deadline) as Promise<T[]>;
}

onDisconnect('search-worker', () => {
  for (const p of pools.values()) p.close();
  pools.clear();
});
