/** Chef's policies resource: /policies, /policies/:name, /policies/:name/revisions[/:rev]. */
import { AppError, notFound } from '@/lib/errors';
import { chefPolicyRows, revisionDocumentWithGroups } from '@/lib/db/queries/policies';
import { deletePolicy, deleteRevision, uploadRevision } from '@/lib/services/policies';
import { chefLockProblem } from '../lock-validation';
import { assertBodyDepth } from '@/lib/validation/limits';
import { ok, policyReader, raw, route, userAccess, type ChefRoute, type Ctx } from '../context';

/** Chef's validation first (its exact, single message), then the console's. */
export function chefValidated(ctx: Ctx, urlName: string): string {
  const text = ctx.req.body.toString('utf8');
  assertBodyDepth(text);
  const problem = chefLockProblem(text, urlName);
  if (problem) throw new AppError('bad_request', problem, [{ path: '', message: problem }]);
  return text;
}

export const policyRoutes: ChefRoute[] = [
  route('GET', 'policies', async (ctx) => {
    policyReader(ctx, 'list policies');
    const rows = await chefPolicyRows();
    return ok(Object.fromEntries(rows.map((p) => [p.name, { uri: `${ctx.orgUrl}/policies/${p.name}`, revisions: Object.fromEntries(p.revisions.map((r) => [r, {}])) }])));
  }),

  route('GET', 'policies/:name', async (ctx) => {
    policyReader(ctx, 'read policies');
    const p = (await chefPolicyRows(ctx.params.name))[0];
    if (!p) throw notFound(`Cannot load policy ${ctx.params.name}`);
    return ok({ revisions: Object.fromEntries(p.revisions.map((r) => [r, {}])) });
  }),

  route('DELETE', 'policies/:name', async (ctx) => ok(await deletePolicy(userAccess(ctx, 'delete policies'), ctx.params.name, ctx.requestId))),

  route('POST', 'policies/:name/revisions', async (ctx) => {
    const access = userAccess(ctx, 'upload policy revisions');
    const text = chefValidated(ctx, ctx.params.name);
    const result = await uploadRevision(access, { policyName: ctx.params.name, text, requestId: ctx.requestId, ownerTeam: ctx.req.query.get('owner_team') ?? ctx.req.query.get('team') ?? undefined });
    if (!result.created) throw new AppError('conflict', `Policy revision ${result.revisionId} of '${ctx.params.name}' already exists`);
    ctx.headers.location = `${ctx.orgUrl}/policies/${ctx.params.name}/revisions/${result.revisionId}`;
    return raw(result.document, 201);
  }),

  route('GET', 'policies/:name/revisions/:rev', async (ctx) => raw(await revisionDocumentWithGroups(policyReader(ctx, 'read policy revisions'), ctx.params.name, ctx.params.rev))),

  route('DELETE', 'policies/:name/revisions/:rev', async (ctx) => {
    const access = userAccess(ctx, 'delete policy revisions');
    return raw((await deleteRevision(access, ctx.params.name, ctx.params.rev, ctx.requestId)).document);
  }),
];
