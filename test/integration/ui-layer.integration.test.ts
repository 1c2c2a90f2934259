/**
 * The layer between the forms and the services: server actions answer the one
 * form error shape (`fieldErrors` naming the input field and the rule,
 * `formError` for the whole form) and store nothing when they refuse; the
 * compose preview opens no write transaction; the cookbook dry run is a GET.
 *
 * The only stand-in is the session cookie's decoding (next-auth's
 * getServerSession): the claims it yields are checked against the real
 * database as in production (lib/authn/session-claims.ts).
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { apiRoutes, call, seed, snapshot, tokenFor, actionFailure } from '@/test/helpers';
import { db } from '@/lib/db/client';
import { runAction } from '@/lib/actions/client';

const session = vi.hoisted(() => ({ current: null as null | { user: { id: string }; sid: string; sv: number } }));
vi.mock('next-auth', async (importOriginal) => ({ ...(await importOriginal<typeof import('next-auth')>()), getServerSession: async () => session.current }));
// /api/v1 on the node:http front reads the session from the cookie (lib/authn/session-cookie.ts): the same session here.
vi.mock('@/lib/authn/session-cookie', async () => {
  const { accessForSessionClaims } = await import('@/lib/authn/session-claims');
  return {
    sessionAccess: async () => {
      const s = session.current;
      const access = s && (await accessForSessionClaims({ id: s.user.id, sid: s.sid, sv: s.sv }));
      return access ? { ...access, via: 'session' } : null;
    },
  };
});
// Outside a Next request there is no cache to revalidate.
vi.mock('next/cache', () => ({ revalidatePath: () => undefined, revalidateTag: () => undefined }));

const { createTeamAction, createUserAction } = await import('@/lib/actions/admin/users-actions');
const { putStageAction } = await import('@/lib/actions/admin/stage-actions');
const { rollbackAction } = await import('@/lib/actions/promotion/rollback-action');
const { saveScenarioAction } = await import('@/lib/actions/previews/scenario-actions');
const { composePolicy } = await import('@/lib/services/compose');
const preview = apiRoutes('/api/v1/policy_groups/[group]/policies/[name]/promote-cookbook/preview');

async function signIn(email: string | null) {
  if (!email) return void (session.current = null);
  const u = await db().user.findUniqueOrThrow({ where: { email }, select: { id: true, sessionVersion: true } });
  session.current = { user: { id: u.id }, sid: randomUUID(), sv: u.sessionVersion };
}

beforeAll(async () => {
  await seed();
});
beforeEach(() => signIn(null));

describe('server actions: the form error shape', () => {
  it('a bad team name comes back as a field error on `name` naming the rule, and nothing is stored', async () => {
    await signIn('admin@example.com');
    const before = snapshot();
    const e = await actionFailure(runAction(createTeamAction, { name: 'Not A Team Name!', description: '' }));
    expect(e.code).toBe('bad_request');
    expect(Object.keys(e.fieldErrors)).toEqual(['name']);
    expect(e.fieldErrors.name[0]).toMatch(/lowercase|letters|digits/);
    expect(snapshot()).toBe(before);
  });

  it('several bad fields each get their own message (a new user: email and password)', async () => {
    await signIn('admin@example.com');
    const before = snapshot();
    const e = await actionFailure(runAction(createUserAction, { email: 'not-an-email', name: 'X', password: 'short', isAdmin: false }));
    expect(e.fieldErrors.email?.[0]).toMatch(/email/);
    expect(e.fieldErrors.password?.[0]).toMatch(/\d+/);
    expect(e.fieldErrors).not.toHaveProperty('name');
    expect(snapshot()).toBe(before);
  });

  it('a service rule (a stage name) reaches the form as a field error too', async () => {
    await signIn('admin@example.com');
    const before = snapshot();
    const e = await actionFailure(runAction(putStageAction, { name: 'no spaces allowed', description: 'x' }));
    expect(e.fieldErrors.name?.[0]).toMatch(/letters, digits/);
    expect(snapshot()).toBe(before);
  });

  it('a rollback without a reason names `reason`', async () => {
    await signIn('admin@example.com');
    const before = snapshot();
    const e = await actionFailure(runAction(rollbackAction, { policy: 'webapp', group: 'dev', toRevisionId: 'x', expectedRevisionId: null, reason: '   ' }));
    expect(e.fieldErrors.reason?.[0]).toMatch(/required/);
    expect(snapshot()).toBe(before);
  });

  it('without a session: a form error, no field errors, nothing stored', async () => {
    const before = snapshot();
    const e = await actionFailure(runAction(createTeamAction, { name: 'ghosts', description: '' }));
    expect(e.code).toBe('unauthorized');
    expect(e.formError).toMatch(/session has ended/i);
    expect(e.fieldErrors).toEqual({});
    expect(snapshot()).toBe(before);
  });

  it('signed in without the permission: a form error naming what is missing, nothing stored', async () => {
    await signIn('viewer@example.com');
    const before = snapshot();
    const e = await actionFailure(runAction(createTeamAction, { name: 'viewers-club', description: '' }));
    expect(e.code).toBe('forbidden');
    expect(e.formError).toBeTruthy();
    expect(e.fieldErrors).toEqual({});
    expect(snapshot()).toBe(before);
  });

  it('a valid input succeeds through the same layer', async () => {
    await signIn('dev@example.com');
    const name = `scenario-${randomUUID().slice(0, 8)}`;
    const r = await runAction(saveScenarioAction, { name, shared: false, note: '', input: { techniques: [], directives: [], rules: [] }, selectedRules: [] });
    expect(r.name).toBe(name);
    expect(await db().orderingScenario.count({ where: { name } })).toBe(1);
  });
});

describe('compose preview', () => {
  it('opens no transaction; saving does', async () => {
    const { accessFor } = await import('@/test/helpers');
    const dev = await accessFor('dev@example.com');
    const spy = vi.spyOn(db(), '$transaction');
    const parent = { run_list: ['webapp::default'], cookbook_locks: { webapp: { version: '1.6.0', identifier: 'w160' } } };
    const includes = [{ name: 'base', source: { type: 'server' as const, policy: 'base', group: 'staging' } }];
    const before = snapshot();
    const shown = await composePolicy(dev, { policy: 'webapp', parent, includes });
    expect(shown.saved).toBeNull();
    expect(spy).not.toHaveBeenCalled();
    expect(snapshot()).toBe(before);
    const saved = await composePolicy(dev, { policy: 'webapp', parent, includes, save: true });
    expect(saved.saved?.revisionId).toBe(shown.lock.revision_id);
    expect(spy).toHaveBeenCalledTimes(1);
    spy.mockRestore();
  });
});

describe('GET …/promote-cookbook/preview (the promote dialog dependency check)', () => {
  const at = async (group: string, policy: string) =>
    (await db().groupPolicy.findFirstOrThrow({ where: { group: { name: group }, policy: { name: policy } }, select: { revision: { select: { revisionId: true } } } })).revision.revisionId;

  it('answers the derived revision and what it changes, and stores nothing', async () => {
    const token = await tokenFor('release@example.com');
    const before = snapshot({ except: ['ApiToken'] });
    const res = await call(preview.GET, 'GET', { token, params: { group: 'production', name: 'api-gateway' }, query: `from=staging&cookbook=nginx&expected_revision_id=${await at('production', 'api-gateway')}` });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ cookbook: 'nginx', dryRun: true, noop: false, after: { version: '11.6.2' } });
    expect(res.json.diff.cookbooks.map((c: { name: string }) => c.name)).toEqual(['nginx']);
    expect(snapshot({ except: ['ApiToken'] })).toBe(before);
  });

  it('a stale expected revision is a 409; a bad query parameter a 400 naming it; no promote right a 403', async () => {
    const release = await tokenFor('release@example.com');
    const stale = await call(preview.GET, 'GET', { token: release, params: { group: 'production', name: 'api-gateway' }, query: 'from=staging&cookbook=nginx&expected_revision_id=' });
    expect(stale.status).toBe(409);
    const bad = await call(preview.GET, 'GET', { token: release, params: { group: 'production', name: 'api-gateway' }, query: 'from=staging&cookbook=no%20such&expected_revision_id=' });
    expect(bad.status).toBe(400);
    expect(bad.json.errors[0].path).toBe('/cookbook');
    const viewer = await tokenFor('viewer@example.com');
    const denied = await call(preview.GET, 'GET', { token: viewer, params: { group: 'production', name: 'api-gateway' }, query: `from=staging&cookbook=nginx&expected_revision_id=${await at('production', 'api-gateway')}` });
    expect(denied.status).toBe(403);
  });
});
