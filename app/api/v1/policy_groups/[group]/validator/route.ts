import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { stageValidatorRoute } from '@/lib/api/contracts/stages';
import { assertCan } from '@/lib/auth/permissions';
import { chefOrg } from '@/lib/config';
import { rotateValidatorFor } from '@/lib/services/clients';

export const dynamic = 'force-dynamic';

/** Issue 41: the stage's validator, created or its key rotated (administrators); the private key is returned once. */
export const POST = apiRoute(stageValidatorRoute, async (_req, { access, params }) => {
  // A stage the caller may not view answers as a missing one (assertCan first: 403 for both to non-viewers).
  assertCan(access, 'stage.view', { stage: params.group });
  const v = await rotateValidatorFor(access, chefOrg(), { stage: params.group });
  return NextResponse.json({ name: v.name, private_key: v.privateKey, stage: v.stage, created: v.created }, { status: 201 });
});
