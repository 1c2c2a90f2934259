import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import git, { type GitHttpRequest, type GitHttpResponse, type HttpClient } from 'isomorphic-git';
import { decryptSecret, encryptSecret } from '@/lib/auth/secret-box';
import { AppError, badRequest } from '@/lib/errors';
import { processState } from '@/lib/process-state';

/**
 * Reading compose includes from git, fail-closed (issue 17, items 1, 2, 10, 19):
 * - only repositories an admin registered (lib/services/compose/git-repositories.ts), by name;
 * - remote: http(s) with no redirects, a time limit and a byte limit on everything received;
 * - local paths only below GIT_LOCAL_ROOT, and only when an admin configured it;
 * - errors name the repository, path and ref the caller gave, never what the remote or a file said.
 */

export interface GitLimits {
  /** Bytes received from a remote per fetch (the shallow pack included). */
  maxRepoBytes: number;
  /** Size of the lock file read. */
  maxFileBytes: number;
  timeoutMs: number;
  maxConcurrent: number;
  /** Git includes per compose request. */
  maxIncludes: number;
}

function envInt(name: string, fallback: number): number {
  const n = Number(process.env[name]);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

export function gitLimits(): GitLimits {
  return {
    maxRepoBytes: envInt('GIT_MAX_REPO_BYTES', 20 * 1024 * 1024),
    maxFileBytes: envInt('GIT_MAX_FILE_BYTES', 4 * 1024 * 1024),
    timeoutMs: envInt('GIT_FETCH_TIMEOUT_MS', 20_000),
    maxConcurrent: envInt('GIT_MAX_CONCURRENT_FETCHES', 2),
    maxIncludes: envInt('GIT_MAX_INCLUDES', 5),
  };
}

/** The directory below which admins may register local repositories; null (the default) means no local repositories. */
export function gitLocalRoot(): string | null {
  const root = process.env.GIT_LOCAL_ROOT;
  if (!root) return null;
  try {
    return fs.realpathSync(root);
  } catch {
    return null;
  }
}

/** The real path of a local repository when it lies below the configured root; null otherwise (or when none is configured). */
export function resolveLocalRepository(p: string): string | null {
  const root = gitLocalRoot();
  if (!root || !path.isAbsolute(p)) return null;
  let real: string;
  try {
    real = fs.realpathSync(p);
  } catch {
    return null;
  }
  return real === root || real.startsWith(root + path.sep) ? real : null;
}

export const isRemoteUrl = (url: string) => /^https?:\/\//i.test(url);

// ---- credentials at rest: lib/auth/secret-box.ts ----

export { decryptSecret, encryptSecret };

// ---- concurrency ----

/** Fetches running and waiting in this process (GIT_MAX_CONCURRENT_FETCHES is per process, whichever copy of this module fetches). */
const slots = processState('git-source.fetch-slots', () => ({ running: 0, waiting: [] as (() => void)[] }));

async function withFetchSlot<T>(limits: GitLimits, fn: () => Promise<T>): Promise<T> {
  const { waiting } = slots;
  if (slots.running >= limits.maxConcurrent) {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        const i = waiting.indexOf(go);
        if (i >= 0) waiting.splice(i, 1);
        reject(new AppError('unavailable', 'Too many git fetches are running; retry in a moment.', [], { retryAfter: 5 }));
      }, limits.timeoutMs);
      const go = () => {
        clearTimeout(timer);
        resolve();
      };
      waiting.push(go);
    });
  } else slots.running++;
  try {
    return await fn();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else slots.running--;
  }
}

// ---- a bounded HTTP client for isomorphic-git ----

class FetchLimit extends Error {
  constructor(readonly kind: 'size' | 'timeout' | 'redirect' | 'status', readonly status?: number) {
    super(kind);
  }
}

async function collect(body: AsyncIterableIterator<Uint8Array> | undefined): Promise<Buffer | undefined> {
  if (!body) return undefined;
  const parts: Uint8Array[] = [];
  for await (const part of body) parts.push(part);
  return Buffer.concat(parts);
}

/** No redirects (a registered URL must not become another host), one deadline and one byte budget for the whole fetch. */
function boundedHttp(limits: GitLimits, signal: AbortSignal): HttpClient & { hit: () => FetchLimit | null } {
  let received = 0;
  // isomorphic-git may wrap or replace the error a body stream throws: remember the limit that was hit.
  let hit: FetchLimit | null = null;
  const stop = (e: FetchLimit) => (hit = e);
  return {
    hit: () => hit,
    async request(req: GitHttpRequest): Promise<GitHttpResponse> {
      const body = await collect(req.body);
      let res: Response;
      try {
        res = await fetch(req.url, { method: req.method ?? 'GET', headers: req.headers, body: body ? new Uint8Array(body) : undefined, redirect: 'manual', signal });
      } catch (e) {
        if (signal.aborted) throw stop(new FetchLimit('timeout'));
        throw e;
      }
      if (res.status >= 300 && res.status < 400) throw stop(new FetchLimit('redirect', res.status));
      if (res.status >= 400) throw stop(new FetchLimit('status', res.status));
      const declared = Number(res.headers.get('content-length') ?? '0');
      if (received + declared > limits.maxRepoBytes) {
        await res.body?.cancel().catch(() => {});
        throw stop(new FetchLimit('size'));
      }
      const reader = res.body?.getReader();
      async function* chunks(): AsyncGenerator<Uint8Array> {
        if (!reader) return;
        for (;;) {
          let r: ReadableStreamReadResult<Uint8Array>;
          try {
            r = await reader.read();
          } catch (e) {
            if (signal.aborted) throw stop(new FetchLimit('timeout'));
            throw e;
          }
          if (r.done) return;
          received += r.value.byteLength;
          if (received > limits.maxRepoBytes) {
            await reader.cancel().catch(() => {});
            throw stop(new FetchLimit('size'));
          }
          yield r.value;
        }
      }
      const headers: Record<string, string> = {};
      res.headers.forEach((v, k) => (headers[k] = v));
      return { url: req.url, method: req.method, statusCode: res.status, statusMessage: res.statusText, headers, body: chunks() };
    },
  };
}

export interface RegisteredRepository {
  name: string;
  url: string;
  username: string | null;
  secretEnc: string | null;
}

const fetchFailure = (repo: string, ref: string, errorPath: string, why: string) =>
  badRequest(`Cannot fetch git repository '${repo}' at '${ref}': ${why}`, [{ path: `${errorPath}/repository`, message: 'repository or ref cannot be fetched' }]);

/**
 * Reads one file from a registered repository at a ref: a shallow clone of an
 * http(s) URL into a temporary folder, or a local repository below
 * GIT_LOCAL_ROOT. Returns the text and the commit SHA to pin.
 */
export async function readGitFile(repo: RegisteredRepository, filepath: string, ref: string, errorPath: string): Promise<{ text: string; commit: string }> {
  const limits = gitLimits();
  const remote = isRemoteUrl(repo.url);
  if (!remote) {
    const dir = resolveLocalRepository(repo.url);
    // The registration was checked, but the root may have changed since: check again, and say nothing about the path.
    if (!dir) throw fetchFailure(repo.name, ref, errorPath, 'local repositories are not enabled for this path (GIT_LOCAL_ROOT)');
    const bare = !fs.existsSync(path.join(dir, '.git'));
    return readAt(bare ? { gitdir: dir } : { dir }, repo.name, filepath, ref, errorPath, limits);
  }
  return withFetchSlot(limits, async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'policy-console-git-'));
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(), limits.timeoutMs);
    try {
      const headers: Record<string, string> = { 'user-agent': 'policy-console' };
      if (repo.secretEnc) {
        let secret: string;
        try {
          secret = decryptSecret(repo.secretEnc);
        } catch {
          throw fetchFailure(repo.name, ref, errorPath, 'its stored credentials cannot be decrypted (was GIT_CREDENTIALS_KEY or the session secret changed?); an admin must register it again');
        }
        headers.authorization = 'Basic ' + Buffer.from(`${repo.username ?? 'git'}:${secret}`).toString('base64');
      }
      const http = boundedHttp(limits, ac.signal);
      const cloning = git.clone({ fs, http, dir: tmp, url: repo.url, ref, singleBranch: true, depth: 1, noCheckout: true, noTags: true, headers });
      const deadline = new Promise<never>((_, reject) => ac.signal.addEventListener('abort', () => reject(new FetchLimit('timeout')), { once: true }));
      try {
        await Promise.race([cloning, deadline]);
      } catch (caught) {
        cloning.catch(() => {});
        const e = http.hit() ?? caught;
        if (e instanceof FetchLimit) {
          if (e.kind === 'size') throw fetchFailure(repo.name, ref, errorPath, `the repository is larger than the limit of ${limits.maxRepoBytes} bytes (GIT_MAX_REPO_BYTES)`);
          if (e.kind === 'timeout') throw fetchFailure(repo.name, ref, errorPath, `no answer within ${limits.timeoutMs} ms (GIT_FETCH_TIMEOUT_MS)`);
          if (e.kind === 'redirect') throw fetchFailure(repo.name, ref, errorPath, 'the server answered with a redirect, which is not followed; register the final URL');
          throw fetchFailure(repo.name, ref, errorPath, `the server refused (HTTP ${e.status})`);
        }
        const code = (e as { code?: string }).code;
        // isomorphic-git's NotFoundError for a missing ref; anything else is a network or protocol failure. Neither message is echoed.
        if (code === 'NotFoundError') throw badRequest(`Git ref '${ref}' not found in '${repo.name}'`, [{ path: `${errorPath}/ref`, message: 'no such branch, tag or commit' }]);
        throw fetchFailure(repo.name, ref, errorPath, 'the repository or the ref cannot be fetched');
      }
      return await readAt({ dir: tmp }, repo.name, filepath, ref, errorPath, limits);
    } finally {
      clearTimeout(timer);
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
}

async function readAt(where: { dir: string } | { gitdir: string }, repoName: string, filepath: string, ref: string, errorPath: string, limits: GitLimits) {
  const refMissing = () => badRequest(`Git ref '${ref}' not found in '${repoName}'`, [{ path: `${errorPath}/ref`, message: 'no such branch, tag or commit' }]);
  let commit: string;
  try {
    commit = await git.resolveRef({ fs, ...where, ref });
  } catch {
    try {
      commit = await git.expandOid({ fs, ...where, oid: ref });
    } catch {
      throw refMissing();
    }
  }
  try {
    // A full 40-hex id that is not in the repository resolves as itself; reading it is what fails.
    commit = (await git.readCommit({ fs, ...where, oid: commit })).oid;
  } catch {
    throw refMissing();
  }
  let blob: Uint8Array;
  try {
    ({ blob } = await git.readBlob({ fs, ...where, oid: commit, filepath }));
  } catch {
    throw badRequest(`File '${filepath}' not found in '${repoName}' at ${ref} (${commit.slice(0, 10)})`, [{ path: `${errorPath}/path`, message: 'no such file at that ref' }]);
  }
  if (blob.byteLength > limits.maxFileBytes) {
    throw badRequest(`File '${filepath}' in '${repoName}' is ${blob.byteLength} bytes; the limit is ${limits.maxFileBytes} (GIT_MAX_FILE_BYTES)`, [{ path: `${errorPath}/path`, message: 'file too large' }]);
  }
  return { text: Buffer.from(blob).toString('utf8'), commit };
}
