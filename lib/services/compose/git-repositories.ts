import type { RegisterGitRepositoryInput } from '@/lib/validation/git-repositories';
import { db } from '@/lib/db/client';
import { assertCan, can, type Access } from '@/lib/auth/permissions';
import { badRequest, notFound } from '@/lib/errors';
import { audit, transaction } from '@/lib/services/funnel';
import { encryptSecret, gitLocalRoot, isRemoteUrl, resolveLocalRepository, type RegisteredRepository } from './git-source';

/** GIT_LOCAL_ROOT resolved (the admin page says whether local repositories are allowed). */
export { gitLocalRoot };
import { sortedBy } from '@/lib/db/order';

/**
 * The git repositories compose may read includes from (issue 17, item 1).
 * Admins register them; everyone else refers to them by name. The URL is
 * shown to admins only; credentials are stored encrypted and never returned.
 */

/** The input's one definition (parsed at the caller's edge: the action, the API contract); the location and credential rules below are checked here. */
export { ZRegisterGitRepositoryInput } from '@/lib/validation/git-repositories';
export type { RegisterGitRepositoryInput } from '@/lib/validation/git-repositories';

export interface GitRepositoryDto {
  name: string;
  url: string;
  username: string | null;
  hasSecret: boolean;
  createdAt: string;
  createdBy: string | null;
}

/** Checks a repository location: an http(s) URL without embedded credentials, or a path below GIT_LOCAL_ROOT. */
function checkLocation(url: string): string {
  if (isRemoteUrl(url)) {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      throw badRequest('url is not a valid URL', [{ path: '/url', message: 'not a valid URL' }]);
    }
    if (u.username || u.password) throw badRequest('Put credentials in username and secret, not in the URL', [{ path: '/url', message: 'must not contain credentials' }]);
    if (u.search || u.hash) throw badRequest('url must not have a query or fragment', [{ path: '/url', message: 'no query or fragment' }]);
    return u.toString();
  }
  if (!gitLocalRoot()) throw badRequest('Local repositories are disabled: register an http(s) URL, or configure GIT_LOCAL_ROOT on the server', [{ path: '/url', message: 'must be an http(s) URL' }]);
  const real = resolveLocalRepository(url);
  if (!real) throw badRequest('A local repository must be an existing absolute path below GIT_LOCAL_ROOT', [{ path: '/url', message: 'not below the configured root' }]);
  return real;
}

const toDto = (r: { name: string; url: string; username: string | null; secretEnc: string | null; createdAt: Date; createdByEmail: string | null }): GitRepositoryDto => ({
  name: r.name,
  url: r.url,
  username: r.username,
  hasSecret: !!r.secretEnc,
  createdAt: r.createdAt.toISOString(),
  createdBy: r.createdByEmail,
});

/** Admin: registers a repository (or replaces one of the same name). */
export async function registerGitRepository(access: Access, input: RegisterGitRepositoryInput, requestId?: string): Promise<{ repository: GitRepositoryDto; created: boolean }> {
  assertCan(access, 'git.manage');
  const url = checkLocation(input.url);
  if (input.secret && !isRemoteUrl(url)) throw badRequest('Credentials apply to http(s) repositories only', [{ path: '/secret', message: 'not for local repositories' }]);
  const secretEnc = input.secret ? encryptSecret(input.secret) : null;
  return transaction(async (tx) => {
    const existing = await tx.gitRepository.findUnique({ where: { name: input.name }, select: { id: true, url: true, username: true, secretEnc: true } });
    const data = { url, username: input.username || null, secretEnc };
    const row = existing
      ? await tx.gitRepository.update({ where: { id: existing.id }, data: { ...data, updatedAt: new Date() } })
      : await tx.gitRepository.create({ data: { name: input.name, ...data, createdById: access.userId, createdByEmail: access.email } });
    // The audit event records where, never the secret.
    await audit(tx, access, {
      action: existing ? 'git-repository.update' : 'git-repository.register',
      targetType: 'git-repository',
      target: input.name,
      before: existing ? { url: existing.url, username: existing.username, hasSecret: !!existing.secretEnc } : undefined,
      after: { url, username: data.username, hasSecret: !!secretEnc },
      requestId,
    });
    return { repository: toDto(row), created: !existing };
  });
}

/** Admin: removes a registration. Revisions already composed keep their pinned content. */
export async function deleteGitRepository(access: Access, repoName: string, requestId?: string): Promise<void> {
  assertCan(access, 'git.manage');
  await transaction(async (tx) => {
    const existing = await tx.gitRepository.findUnique({ where: { name: repoName }, select: { id: true, url: true } });
    if (!existing) throw notFound(`No registered git repository '${repoName}'`);
    await tx.gitRepository.delete({ where: { id: existing.id } });
    await audit(tx, access, { action: 'git-repository.delete', targetType: 'git-repository', target: repoName, before: { url: existing.url }, requestId });
  });
}

/** Admins see URLs and who registered; everyone else sees the names they may use in compose. */
export async function listGitRepositories(access: Access): Promise<GitRepositoryDto[] | { name: string }[]> {
  const rows = await db().gitRepository.findMany({ orderBy: { name: 'asc' }, select: { name: true, url: true, username: true, secretEnc: true, createdAt: true, createdByEmail: true } }).then(sortedBy((r) => r.name));
  if (can(access, 'git.manage')) return rows.map(toDto);
  return rows.map((r) => ({ name: r.name }));
}

/** For compose: the registration behind a name (with its encrypted secret, which stays on the server). */
export async function findRegisteredRepository(repoName: string, errorPath: string): Promise<RegisteredRepository> {
  const row = await db().gitRepository.findUnique({ where: { name: repoName }, select: { name: true, url: true, username: true, secretEnc: true } });
  if (!row) {
    throw badRequest(`'${repoName}' is not a registered git repository: an admin registers repositories under Admin → Git repositories, and compose names them`, [{ path: `${errorPath}/repository`, message: 'not a registered repository' }]);
  }
  return row;
}
