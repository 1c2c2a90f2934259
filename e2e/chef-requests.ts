import type { APIRequestContext } from '@playwright/test';
import { signRequest } from '../lib/chef/signing';

/** A request to the console's Chef door signed as the user `admin` with `key` (as knife sends it); a body goes as JSON. */
export function signedChefRequest(request: APIRequestContext, key: string, method: 'GET' | 'POST' | 'PUT', p: string, body?: unknown) {
  const text = body === undefined ? '' : JSON.stringify(body);
  const headers = { ...signRequest({ method, path: p, body: text, userId: 'admin', privateKey: key }), 'content-type': 'application/json' };
  return request.fetch(p, { method, headers, data: body === undefined ? undefined : text });
}
