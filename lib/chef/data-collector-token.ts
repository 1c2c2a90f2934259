/**
 * Issue 26: Chef Automate's data collector form, for a fleet re-pointed from
 * Automate: `POST /data-collector/v0` with `x-data-collector-token: <token>`
 * (what chef-client sends, unsigned, when `data_collector.token` is set). The
 * token is the console's DATA_COLLECTOR_TOKEN; without it this path answers
 * 404 and only signed reports (POST /organizations/<org>/data-collector) are
 * taken. A token-form message is trusted for the node it names, as Automate
 * trusts it: keep the token secret, or use the signed form.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createHash, timingSafeEqual } from 'node:crypto';
import { declaresOver, readBody } from '@/lib/ops/body';
import { requestIdFrom } from '@/lib/ops/request-id';
import { asAppError } from '@/lib/errors';
import { ingestRunMessage } from '@/lib/services/runs';
import { dataCollectorMaxBytes, dataCollectorToken } from '@/lib/config';

export const DATA_COLLECTOR_TOKEN_PATHS: ReadonlySet<string> = new Set(['/data-collector/v0', '/data-collector/v0/']);

function same(presented: string, expected: string): boolean {
  return timingSafeEqual(createHash('sha256').update(presented).digest(), createHash('sha256').update(expected).digest());
}

function answer(res: ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...extra });
  res.end(JSON.stringify(body));
}

/** Serves POST /data-collector/v0 (the token form). */
export async function serveDataCollectorToken(req: IncomingMessage, res: ServerResponse): Promise<void> {
  // The front's id (lib/ops/server.ts): the log line, the audit and the answer name the same request.
  const requestId = requestIdFrom(req.headers['x-request-id']);
  const headers = { 'x-request-id': requestId };
  const token = dataCollectorToken();
  if (!token) return answer(res, 404, { error: ['The token form of the data collector is off (no DATA_COLLECTOR_TOKEN); report through the signed /organizations/<org>/data-collector'] }, headers);
  if (req.method !== 'POST') return answer(res, 405, { error: [`Method ${String(req.method).replace(/[^A-Za-z-]/g, '').slice(0, 20)} is not allowed on /data-collector/v0`] }, { ...headers, allow: 'POST' });
  const presented = req.headers['x-data-collector-token'];
  if (typeof presented !== 'string' || !same(presented, token)) return answer(res, 401, { error: ['x-data-collector-token is missing or wrong'] }, headers);
  const max = dataCollectorMaxBytes();
  const declaredOver = declaresOver(req, max);
  const read = await readBody(req, max);
  if (read === 'too-large') return answer(res, 413, { error: [`A data collector message is at most ${max} bytes (DATA_COLLECTOR_MAX_BYTES)`] }, declaredOver ? { ...headers, connection: 'close' } : headers);
  let body: unknown;
  try {
    body = JSON.parse(read.toString('utf8'));
  } catch {
    return answer(res, 400, { error: ['invalid JSON'], errors: [{ path: '', message: 'Body must be valid JSON' }] }, headers);
  }
  try {
    answer(res, 201, await ingestRunMessage({ kind: 'token' }, body, { requestId }), headers);
  } catch (e) {
    const known = asAppError(e);
    if (known) return answer(res, known.status, { error: [known.message], ...(known.errors.length ? { errors: known.errors } : {}) }, headers);
    console.error('[data-collector] token-form ingest failed', e);
    answer(res, 500, { error: ['internal service error'] }, headers);
  }
}
