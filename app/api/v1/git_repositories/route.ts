import { NextResponse } from 'next/server';
import { apiRoute, readJsonObject } from '@/lib/api/route';
import { listGitRepositories, registerGitRepository } from '@/lib/services/git-repositories';

export const dynamic = 'force-dynamic';

/** Registered git repositories: names for everyone (what compose may name), URLs for admins. Credentials are never returned. */
export const GET = apiRoute(async (_req, { access }) => NextResponse.json(await listGitRepositories(access)));

/** Admin: POST { name, url, username?, secret? } registers (201) or replaces (200) a repository. */
export const POST = apiRoute(async (req, { access, requestId }) => {
  const { repository, created } = await registerGitRepository(access, (await readJsonObject(req)) as never, requestId);
  return NextResponse.json(repository, { status: created ? 201 : 200 });
});
