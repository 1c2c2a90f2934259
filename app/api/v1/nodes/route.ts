import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { listNodesRoute } from '@/lib/api/contracts/nodes';
import { listNodes } from '@/lib/services/nodes';

export const dynamic = 'force-dynamic';

/** ?group=&policy=&stale=true — nodes in stages the caller may view. */
export const GET = apiRoute(listNodesRoute, async (_req, { access, query }) => NextResponse.json({ nodes: await listNodes(access, query) }));
