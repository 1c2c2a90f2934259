/**
 * Issue 15: staging and production are protected in the demo, so a promotion
 * there opens a request instead of moving. Specs that test what happens after
 * a move get it the way a release does: the approvers (lead@, then admin@)
 * approve through the API, as their own signed-in sessions.
 */
import { expect, type Browser, type Locator, type Page } from '@playwright/test';
import { serverUrl } from './servers';
import { stateFile, type Role } from './roles';

type RequestBody = { id: string; status: string; approvals: unknown[]; approvals_required: number; policy: string; stage: string };

/** The request a dialog just reported ("Request created: needs N approvals"), by its link. */
export async function createdRequestId(scope: Page | Locator): Promise<string> {
  const link = scope.getByTestId('request-link');
  await expect(link).toBeVisible();
  const href = (await link.getAttribute('href'))!;
  return decodeURIComponent(href.split('/').pop()!);
}

async function approveAs(browser: Browser, role: Role, id: string): Promise<RequestBody> {
  const ctx = await browser.newContext({ storageState: stateFile(role) });
  try {
    // A cookie-authenticated write must come from the console's own origin (lib/api/csrf.ts).
    const res = await ctx.request.post(`/api/v1/promotion_requests/${encodeURIComponent(id)}/approve`, { data: { comment: `e2e: approved by ${role}` }, headers: { origin: serverUrl() } });
    expect(res.status(), `approve ${id} as ${role}: ${await res.text()}`).toBe(200);
    const body = (await res.json()) as { request?: RequestBody } & RequestBody;
    return body.request ?? body;
  } finally {
    await ctx.close();
  }
}

/** Approves until the request applies (lead@ first, then admin@ when it needs two), and returns the applied request. */
export async function approveUntilApplied(browser: Browser, id: string): Promise<RequestBody> {
  let r = await approveAs(browser, 'lead', id);
  if (r.status === 'pending') r = await approveAs(browser, 'admin', id);
  expect(r.status, `request ${id} after its approvals`).toBe('applied');
  return r;
}

/** The pending requests into `stage`, as `role` sees them (for a bulk promotion, one per policy). */
export async function pendingRequests(browser: Browser, role: Role, stage: string): Promise<RequestBody[]> {
  const ctx = await browser.newContext({ storageState: stateFile(role) });
  try {
    const res = await ctx.request.get(`/api/v1/promotion_requests?stage=${encodeURIComponent(stage)}&status=pending`);
    expect(res.status()).toBe(200);
    const body = (await res.json()) as { requests?: RequestBody[] } | RequestBody[];
    return Array.isArray(body) ? body : (body.requests ?? []);
  } finally {
    await ctx.close();
  }
}
