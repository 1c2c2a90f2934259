import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { listNodes } from '@/lib/db/queries/nodes';

export const dynamic = 'force-dynamic';

/** ?group=&policy=&stale=true — nodes in stages the caller may view. */
export const GET = apiRoute(async (req, { access }) => {
  const q = new URL(req.url).searchParams;
  const nodes = await listNodes(access, { group: q.get('group') ?? undefined, policy: q.get('policy') ?? undefined, stale: q.get('stale') === 'true' });
  return NextResponse.json({ nodes });
});
