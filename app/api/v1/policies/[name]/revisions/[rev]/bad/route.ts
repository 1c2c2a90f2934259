import { NextResponse } from 'next/server';
import { apiRoute, readBody } from '@/lib/api/route';
import { badRequest } from '@/lib/errors';
import { markRevisionBad, unmarkRevisionBad } from '@/lib/services/bad-revisions';

export const dynamic = 'force-dynamic';

async function optionalObject(req: Request): Promise<Record<string, unknown>> {
  const text = (await readBody(req)).trim();
  if (!text) return {};
  let b: unknown;
  try {
    b = JSON.parse(text);
  } catch {
    throw badRequest('Request body is not valid JSON', [{ path: '', message: 'Body must be valid JSON' }]);
  }
  if (!b || typeof b !== 'object' || Array.isArray(b)) throw badRequest('Body must be a JSON object', [{ path: '', message: 'Body must be a JSON object' }]);
  return b as Record<string, unknown>;
}

/** PUT { reason } — mark the revision bad (promote on a stage running it, the owner team, or admin). */
export const PUT = apiRoute(async (req, { access, params, requestId }) => {
  const b = await optionalObject(req);
  return NextResponse.json({ bad_revision: await markRevisionBad(access, { policy: params.name, revisionId: params.rev, reason: b.reason as string, requestId }) });
});

/** DELETE (optional body { reason }) — unmark. */
export const DELETE = apiRoute(async (req, { access, params, requestId }) => {
  const b = await optionalObject(req);
  return NextResponse.json(await unmarkRevisionBad(access, { policy: params.name, revisionId: params.rev, reason: b.reason as string | undefined, requestId }));
});
