/**
 * Issue 47: a promotion gate's outside checks — an HTTP endpoint that must answer an expected status, or a
 * Prometheus query whose value must lie within bounds. Pure: the shapes, their validation, and how an answer
 * is read into pass | fail | inconclusive (the fetch is lib/services/funnel/checks.ts).
 *
 * Inconclusive (the gate is unmet and says so; a person may override it with a written reason): a timeout, a
 * connection that failed, a 5xx, a Prometheus answer without a sample, or one whose result type is not a vector
 * or a scalar (a matrix, a string), or a value that is not a number.
 */

export interface HttpCheck {
  name: string;
  kind: 'http';
  url: string;
  /** Statuses that pass (default: any 2xx). */
  expect_status?: number[];
  timeout_ms?: number;
  /** The webhook rule on private targets: loopback, link-local and private addresses only with this explicit allowance. */
  allow_private_targets?: boolean;
}

export interface PrometheusCheck {
  name: string;
  kind: 'prometheus';
  /** The Prometheus server's base URL; the check queries `<url>/api/v1/query`. */
  url: string;
  query: string;
  min?: number;
  max?: number;
  timeout_ms?: number;
  allow_private_targets?: boolean;
}

export type GateCheck = HttpCheck | PrometheusCheck;

export type CheckOutcome = 'pass' | 'fail' | 'inconclusive';

/** One evaluation of a check, as recorded and shown in the gate's answer. */
export interface CheckResult {
  name: string;
  kind: 'http' | 'prometheus';
  result: CheckOutcome;
  /** The status code (http) or the sample (prometheus) read, when there was one. */
  value: number | null;
  /** What was seen, in words: "HTTP 500", "no sample", "0.7 above the maximum 0.5", "timed out after 2000 ms". */
  detail: string;
  duration_ms: number;
  /** When it was evaluated (null: never, or not lately). */
  at: string | null;
}

export const CHECK_TIMEOUT_DEFAULT_MS = 5_000;
export const CHECK_TIMEOUT_MIN_MS = 100;
export const CHECK_TIMEOUT_MAX_MS = 30_000;
export const MAX_CHECKS = 10;

/** The timeout a check runs with: its own, bounded. */
export function checkTimeoutMs(c: Pick<GateCheck, 'timeout_ms'>): number {
  const t = c.timeout_ms ?? CHECK_TIMEOUT_DEFAULT_MS;
  return Math.min(CHECK_TIMEOUT_MAX_MS, Math.max(CHECK_TIMEOUT_MIN_MS, t));
}

/** Checks the list's shape beyond the input schema: unique names, bounds in order. Problems name the field and the rule. */
export function validateGateChecks(checks: GateCheck[], prefix = '/gate/checks'): { path: string; message: string }[] {
  const out: { path: string; message: string }[] = [];
  if (checks.length > MAX_CHECKS) out.push({ path: prefix, message: `at most ${MAX_CHECKS} checks` });
  const seen = new Set<string>();
  checks.forEach((c, i) => {
    if (seen.has(c.name)) out.push({ path: `${prefix}/${i}/name`, message: `name '${c.name}' is used by another check` });
    seen.add(c.name);
    if (c.kind === 'prometheus') {
      if (c.min === undefined && c.max === undefined) out.push({ path: `${prefix}/${i}/min`, message: 'a prometheus check needs min, max or both' });
      if (c.min !== undefined && c.max !== undefined && c.min > c.max) out.push({ path: `${prefix}/${i}/max`, message: 'max must not be below min' });
    }
  });
  return out;
}

/** The outcome of an HTTP check's answer: an expected status passes; a 5xx (not expected) is inconclusive; any other status fails. */
export function readHttpStatus(c: Pick<HttpCheck, 'expect_status'>, status: number): { result: CheckOutcome; detail: string } {
  const expected = c.expect_status?.length ? c.expect_status.includes(status) : status >= 200 && status < 300;
  if (expected) return { result: 'pass', detail: `HTTP ${status}` };
  if (status >= 500) return { result: 'inconclusive', detail: `HTTP ${status}: the endpoint failed to answer` };
  return { result: 'fail', detail: `HTTP ${status}, expected ${c.expect_status?.length ? c.expect_status.join(' or ') : '2xx'}` };
}

/**
 * Reads a Prometheus `/api/v1/query` answer (`{ status, data: { resultType, result } }`). A vector's samples
 * must all lie within [min, max]; a scalar's value too. No sample, a matrix, a string, an error status or a
 * value that is not a finite number is inconclusive.
 */
export function readPrometheusAnswer(c: Pick<PrometheusCheck, 'min' | 'max'>, body: unknown): { result: CheckOutcome; value: number | null; detail: string } {
  const b = body as { status?: unknown; error?: unknown; data?: { resultType?: unknown; result?: unknown } } | null;
  if (!b || typeof b !== 'object' || b.status !== 'success' || !b.data || typeof b.data !== 'object') {
    const err = b && typeof b === 'object' && typeof b.error === 'string' ? `: ${b.error.slice(0, 200)}` : '';
    return { result: 'inconclusive', value: null, detail: `the query did not succeed${err}` };
  }
  const type = b.data.resultType;
  let values: unknown[];
  if (type === 'vector') {
    if (!Array.isArray(b.data.result)) return { result: 'inconclusive', value: null, detail: 'a vector without samples' };
    values = b.data.result.map((s) => (s && typeof s === 'object' && Array.isArray((s as { value?: unknown }).value) ? (s as { value: unknown[] }).value[1] : undefined));
  } else if (type === 'scalar') {
    values = Array.isArray(b.data.result) ? [b.data.result[1]] : [undefined];
  } else {
    return { result: 'inconclusive', value: null, detail: `the query returned a ${typeof type === 'string' ? type : 'result of no known type'}, not a vector or a scalar` };
  }
  if (!values.length) return { result: 'inconclusive', value: null, detail: 'no sample' };
  const nums = values.map((v) => (typeof v === 'string' || typeof v === 'number' ? Number(v) : NaN));
  if (nums.some((n) => !Number.isFinite(n))) return { result: 'inconclusive', value: null, detail: 'a sample is not a number' };
  for (const v of nums) {
    if (c.min !== undefined && v < c.min) return { result: 'fail', value: v, detail: `${v} below the minimum ${c.min}` };
    if (c.max !== undefined && v > c.max) return { result: 'fail', value: v, detail: `${v} above the maximum ${c.max}` };
  }
  const v = nums.length === 1 ? nums[0] : nums.reduce((a, x) => (Math.abs(x) > Math.abs(a) ? x : a), nums[0]);
  return { result: 'pass', value: v, detail: nums.length === 1 ? `${v} within bounds` : `${nums.length} samples within bounds` };
}

/** The gate's line for a check that does not pass ("check 'smoke' inconclusive: HTTP 500"). */
export function checkUnmetWords(r: CheckResult): string {
  return `check '${r.name}' ${r.result === 'fail' ? 'failed' : 'is inconclusive'}: ${r.detail}`;
}
