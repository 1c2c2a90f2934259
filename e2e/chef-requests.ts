import type { APIRequestContext } from '@playwright/test';
import type { Page } from './test';
import { signRequest } from '../lib/auth/chef-signing';

/** A request to the console's Chef door signed as the user `admin` with `key` (as knife sends it); a body goes as JSON. */
export function signedChefRequest(request: APIRequestContext, key: string, method: 'GET' | 'POST' | 'PUT', p: string, body?: unknown) {
  const text = body === undefined ? '' : JSON.stringify(body);
  const headers = { ...signRequest({ method, path: p, body: text, userId: 'admin', privateKey: key }), 'content-type': 'application/json' };
  return request.fetch(p, { method, headers, data: body === undefined ? undefined : text });
}

/** A Chef key for the signed-in user, made on the Connect page as a user would for knife: its private key (PEM). */
export async function chefKeyFromConnect(page: Page, name: string): Promise<string> {
  await page.goto('/connect');
  await page.getByLabel('Key name').fill(name);
  await page.getByRole('button', { name: 'Generate key' }).click();
  const dialog = page.getByRole('dialog');
  const key = await dialog.getByLabel('Private key').inputValue();
  await dialog.getByRole('button', { name: 'I have saved it' }).click();
  return key;
}
