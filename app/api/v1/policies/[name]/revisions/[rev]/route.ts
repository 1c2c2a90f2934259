import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { assertCan } from '@/lib/auth/permissions';
import { revisionDocumentWithGroups } from '@/lib/db/queries/policies';
import { deleteRevision } from '@/lib/services/delete-policy';

export const dynamic = 'force-dynamic';

const json = (text: string, status = 200) => new NextResponse(text, { status, headers: { 'content-type': 'application/json' } });

export const GET = apiRoute(async (_req, { access, params }) => {
  assertCan(access, 'policy.read');
  return json(await revisionDocumentWithGroups(access, params.name, params.rev));
});

export const DELETE = apiRoute(async (_req, { access, params, requestId }) => json((await deleteRevision(access, params.name, params.rev, requestId)).document));
