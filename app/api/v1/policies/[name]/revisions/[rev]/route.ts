import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { deleteRevisionRoute, getRevisionRoute } from '@/lib/api/contracts/policies';
import { assertCan } from '@/lib/auth/permissions';
import { revisionDocument, revisionDocumentWithGroups } from '@/lib/db/queries/policies';
import { deleteRevision } from '@/lib/services/policies';

export const dynamic = 'force-dynamic';

const json = (text: string, status = 200) => new NextResponse(text, { status, headers: { 'content-type': 'application/json' } });

/** ?raw=true downloads the stored document alone, as an attachment. */
export const GET = apiRoute(getRevisionRoute, async (_req, { access, params, query }) => {
  assertCan(access, 'policy.read');
  if (query.raw) {
    const text = await revisionDocument(params.name, params.rev);
    return new NextResponse(text, {
      headers: { 'content-type': 'application/json', 'content-disposition': `attachment; filename="${params.name}-${params.rev.slice(0, 10)}.lock.json"` },
    });
  }
  return json(await revisionDocumentWithGroups(access, params.name, params.rev));
});

export const DELETE = apiRoute(deleteRevisionRoute, async (_req, { access, params, requestId }) => json((await deleteRevision(access, params.name, params.rev, requestId)).document));
