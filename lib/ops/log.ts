/**
 * Structured logs: one JSON object per line on stdout (LOG_FORMAT=text for a
 * human-readable line instead). LOG_LEVEL (debug, info, warn, error; default
 * info) drops lines below it. Callers pass fields they chose: nothing here
 * reads headers or bodies, so secrets (Authorization, cookies, X-Ops
 * signatures) and lock documents never reach the log.
 */

export type Level = 'debug' | 'info' | 'warn' | 'error';
const RANK: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

function threshold(): number {
  const l = (process.env.LOG_LEVEL ?? 'info').toLowerCase() as Level;
  return RANK[l] ?? RANK.info;
}

function textLine(time: string, level: Level, msg: string, fields: Record<string, unknown>): string {
  const rest = Object.entries(fields)
    .filter(([, v]) => v !== undefined && v !== null)
    .map(([k, v]) => `${k}=${typeof v === 'string' && !/\s/.test(v) ? v : JSON.stringify(v)}`)
    .join(' ');
  return `${time} ${level.toUpperCase().padEnd(5)} ${msg}${rest ? ' ' + rest : ''}`;
}

/** Writes one log line; `fields` are flattened beside time, level and msg. */
export function log(level: Level, msg: string, fields: Record<string, unknown> = {}): void {
  if (RANK[level] < threshold()) return;
  const time = new Date().toISOString();
  const line = process.env.LOG_FORMAT === 'text' ? textLine(time, level, msg, fields) : JSON.stringify({ time, level, msg, ...fields });
  process.stdout.write(line + '\n');
}

export interface RequestLogFields {
  requestId: string;
  method: string;
  route: string;
  status: number;
  durationMs: number;
  surface: 'chef' | 'console' | 'metrics';
  actorId?: string;
  via?: string;
  /** True when the client went away before the response finished. */
  aborted?: boolean;
}

/** The one line per request: 5xx are errors, everything else info. */
export function logRequest(f: RequestLogFields): void {
  log(f.status >= 500 ? 'error' : 'info', 'request', {
    request_id: f.requestId,
    method: f.method,
    route: f.route,
    status: f.status,
    duration_ms: Math.round(f.durationMs * 100) / 100,
    surface: f.surface,
    ...(f.actorId ? { actor_id: f.actorId } : {}),
    ...(f.via ? { via: f.via } : {}),
    ...(f.aborted ? { aborted: true } : {}),
  });
}
