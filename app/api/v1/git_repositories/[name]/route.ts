import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { deleteGitRepositoryRoute } from '@/lib/api/contracts/admin';
import { deleteGitRepository } from '@/lib/services/compose';

export const dynamic = 'force-dynamic';

/** Admin: removes a registered repository. */
export const DELETE = apiRoute(deleteGitRepositoryRoute, async (_req, { access, params, requestId }) => {
  await deleteGitRepository(access, params.name, requestId);
  return NextResponse.json({ name: params.name, deleted: true });
});
