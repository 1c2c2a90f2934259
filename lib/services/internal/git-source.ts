import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import git from 'isomorphic-git';
import http from 'isomorphic-git/http/node';
import { badRequest } from '@/lib/errors';

/**
 * Reads one file from a git repository at a ref with isomorphic-git (no git
 * binary): a local path (working tree or bare) or an http(s) URL (shallow
 * clone into a temporary folder). Returns the text and the commit SHA to pin.
 */
export async function readGitFile(repository: string, filepath: string, ref: string, errorPath: string): Promise<{ text: string; commit: string }> {
  const remote = /^https?:\/\//.test(repository);
  let dir = repository;
  let tmp: string | null = null;
  try {
    if (remote) {
      tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'policy-console-git-'));
      dir = tmp;
      try {
        await git.clone({ fs, http, dir, url: repository, ref, singleBranch: true, depth: 1, noCheckout: true });
      } catch (e) {
        throw badRequest(`Cannot fetch git repository '${repository}' at '${ref}': ${(e as Error).message}`, [{ path: `${errorPath}/repository`, message: 'repository or ref cannot be fetched' }]);
      }
    } else if (!fs.existsSync(repository)) {
      throw badRequest(`Git repository '${repository}' does not exist`, [{ path: `${errorPath}/repository`, message: 'no such repository' }]);
    }
    const bare = !remote && !fs.existsSync(path.join(repository, '.git'));
    const where = bare ? { gitdir: dir } : { dir };
    let commit: string;
    try {
      commit = await git.resolveRef({ fs, ...where, ref });
    } catch {
      try {
        commit = await git.expandOid({ fs, ...where, oid: ref });
      } catch {
        throw badRequest(`Git ref '${ref}' not found in '${repository}'`, [{ path: `${errorPath}/ref`, message: 'no such branch, tag or commit' }]);
      }
    }
    commit = (await git.readCommit({ fs, ...where, oid: commit })).oid;
    try {
      const { blob } = await git.readBlob({ fs, ...where, oid: commit, filepath });
      return { text: Buffer.from(blob).toString('utf8'), commit };
    } catch {
      throw badRequest(`File '${filepath}' not found in '${repository}' at ${ref} (${commit.slice(0, 10)})`, [{ path: `${errorPath}/path`, message: 'no such file at that ref' }]);
    }
  } finally {
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  }
}
