/**
 * Issue 42: the first administrator of an empty console. `npm run admin:create` (the real script, as a child
 * process: the password from --password-file, never an argument; refused while an active administrator exists
 * unless --force), and the first-run page's one-time setup code (hashed in the database, single use, any
 * instance's code on any instance, two claims at once make one administrator). Both databases.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '@/lib/db/client';
import { verifyPassword } from '@/lib/auth/password';
import { claimFirstRun, firstRunOpen, makeAdministrator, mintSetupCode } from '@/lib/services/users';

let tmp: string;

function adminCreate(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/admin-create.ts', ...args], { env: { ...process.env, DATABASE_URL: process.env.DATABASE_URL }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'first-admin-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('the first-run page (setup codes)', () => {
  it('is open while no administrator exists; a wrong code is refused and changes nothing', async () => {
    expect(await db().user.count()).toBe(0);
    expect(await firstRunOpen()).toBe(true);
    const a = await mintSetupCode();
    expect(a?.code).toMatch(/^([A-Z2-9]{4}-){5}[A-Z2-9]{4}$/);
    // Stored hashed: the code itself is nowhere in the database.
    const rows = await db().setupCode.findMany({ select: { codeHash: true } });
    expect(rows.map((r) => r.codeHash)).not.toContain(a!.code);
    await expect(claimFirstRun({ code: 'AAAA-BBBB-CCCC-DDDD-EEEE-FFFF', email: 'x@example.com', password: 'long enough pw' })).rejects.toThrow(/setup code is not valid/);
    expect(await db().user.count()).toBe(0);
  });

  it('two claims at once (two codes, as two instances printed them) make exactly one administrator', async () => {
    const [a, b] = [await mintSetupCode(), await mintSetupCode()];
    const results = await Promise.allSettled([
      claimFirstRun({ code: a!.code.toLowerCase(), email: 'first@example.com', name: 'First', password: 'correct horse battery' }),
      claimFirstRun({ code: b!.code, email: 'second@example.com', name: 'Second', password: 'correct horse battery' }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(String(refused.reason.message)).toMatch(/active administrator|setup code is not valid/);
    const admins = await db().user.findMany({ where: { isAdmin: true }, select: { email: true, origin: true, passwordHash: true, chefName: true } });
    expect(admins).toHaveLength(1);
    expect(admins[0].origin).toBe('first-run');
    expect(await verifyPassword(admins[0].passwordHash, 'correct horse battery')).toBe(true);
    // Every code is spent, the page is closed, and no new code is minted while an administrator is active.
    expect(await db().setupCode.count({ where: { claimedAt: null } })).toBe(0);
    expect(await firstRunOpen()).toBe(false);
    expect(await mintSetupCode()).toBeNull();
    await expect(claimFirstRun({ code: a!.code, email: 'late@example.com', password: 'correct horse battery' })).rejects.toThrow();
    expect(await db().user.count()).toBe(1);
    // Audited, as the first-run page.
    expect(await db().auditEvent.count({ where: { action: 'user.create', via: 'first-run' } })).toBe(1);
  });
});

describe('npm run admin:create', () => {
  it('refuses a password argument, and refuses while an active administrator exists (exit 1, nothing written)', async () => {
    const pw = path.join(tmp, 'pw');
    fs.writeFileSync(pw, 'another long password\n');
    const arg = await adminCreate(['--email', 'ops@example.com', '--password', 'hunter22hunter22']);
    expect(arg.code).toBe(2);
    expect(arg.stderr).toMatch(/never taken as an argument/);
    const refused = await adminCreate(['--email', 'ops@example.com', '--password-file', pw]);
    expect(refused.code, refused.stdout + refused.stderr).toBe(1);
    expect(refused.stderr).toMatch(/active administrator .*--force/);
    expect(await db().user.count({ where: { email: 'ops@example.com' } })).toBe(0);
  });

  it('--force makes another administrator (break glass), marked admin-create; with no active administrator it needs no --force', async () => {
    const pw = path.join(tmp, 'pw');
    const forced = await adminCreate(['--email', 'Ops.Lead@example.com', '--name', 'Ops Lead', '--password-file', pw, '--force']);
    expect(forced.code, forced.stdout + forced.stderr).toBe(0);
    expect(forced.stdout).toMatch(/Created administrator ops\.lead@example\.com \(Chef user name ops-lead\)/);
    const u = await db().user.findUniqueOrThrow({ where: { email: 'ops.lead@example.com' }, select: { isAdmin: true, active: true, origin: true, name: true, passwordHash: true, orgMemberships: { select: { orgId: true } } } });
    expect(u).toMatchObject({ isAdmin: true, active: true, origin: 'admin-create', name: 'Ops Lead' });
    expect(u.orgMemberships).toHaveLength(1);
    expect(await verifyPassword(u.passwordHash, 'another long password')).toBe(true);

    // Every administrator deactivated: the same command (in-process here) restores one without --force.
    // (Whichever of the two racing first-run claims won is the account made administrator again.)
    const firstRun = await db().user.findFirstOrThrow({ where: { origin: 'first-run' }, select: { email: true } });
    await db().user.updateMany({ where: { isAdmin: true }, data: { active: false } });
    const again = await makeAdministrator({ email: firstRun.email, password: 'a new long password' }, { origin: 'admin-create' });
    expect(again.existing).toBe(true);
    const first = await db().user.findUniqueOrThrow({ where: { email: firstRun.email }, select: { active: true, isAdmin: true, origin: true, sessionVersion: true } });
    expect(first).toMatchObject({ active: true, isAdmin: true, origin: 'admin-create' });
    expect(first.sessionVersion).toBeGreaterThan(0);
    // A short password is a clear refusal naming the field.
    await expect(makeAdministrator({ email: 'short@example.com', password: 'short' }, { origin: 'admin-create', force: true })).rejects.toThrow(/password: must be at least 10 characters/);
  });
});
