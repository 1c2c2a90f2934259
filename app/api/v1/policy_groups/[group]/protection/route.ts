import { NextResponse } from 'next/server';
import { apiRoute, readJsonObject } from '@/lib/api/route';
import { badRequest } from '@/lib/errors';
import { getStageProtection, setStageProtection } from '@/lib/services/stage-guards';

export const dynamic = 'force-dynamic';

/** GET: the stage's protection, rules and approvers (view). */
export const GET = apiRoute(async (_req, { access, params }) => NextResponse.json(await getStageProtection(access, params.group)));

/**
 * PUT { approvals_required: number, rules: [...], approvers?: ["user:<email>" | "team:<name>"], protected?: boolean } (manage).
 * `protected: false` lifts the protection.
 */
export const PUT = apiRoute(async (req, { access, params, requestId }) => {
  const b = await readJsonObject(req);
  const known = new Set(['approvals_required', 'rules', 'approvers', 'protected']);
  const unknown = Object.keys(b).filter((k) => !known.has(k));
  if (unknown.length) throw badRequest(`Unknown field '${unknown[0]}': the body takes approvals_required, rules, approvers and protected`, unknown.map((k) => ({ path: `/${k}`, message: `unknown field '${k}'` })));
  if (b.protected !== false && !('approvals_required' in b)) throw badRequest('approvals_required is required: the approvals every change needs (0 to let only the rules decide)', [{ path: '/approvals_required', message: 'is required' }]);
  const result = await setStageProtection(access, {
    stage: params.group,
    protected: b.protected as boolean | undefined,
    approvalsRequired: (b.approvals_required ?? 0) as number,
    rules: b.rules ?? [],
    approvers: b.approvers as string[] | undefined,
    requestId,
  });
  return NextResponse.json(result);
});

/** DELETE: lifts the protection (approver grants stay). */
export const DELETE = apiRoute(async (_req, { access, params, requestId }) => NextResponse.json(await setStageProtection(access, { stage: params.group, protected: false, requestId })));
