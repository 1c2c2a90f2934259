import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { listGitRepositoriesRoute, registerGitRepositoryRoute } from '@/lib/api/contracts/admin';
import { listGitRepositories, registerGitRepository } from '@/lib/services/compose';

export const dynamic = 'force-dynamic';

/** Registered git repositories: names for everyone (what compose may name), URLs for admins. Credentials are never returned. */
export const GET = apiRoute(listGitRepositoriesRoute, async (_req, { access }) => NextResponse.json(await listGitRepositories(access)));

/** Admin: POST { name, url, username?, secret? } registers (201) or replaces (200) a repository. */
export const POST = apiRoute(registerGitRepositoryRoute, async (_req, { access, body, requestId }) => {
  const { repository, created } = await registerGitRepository(access, body, requestId);
  return NextResponse.json(repository, { status: created ? 201 : 200 });
});
