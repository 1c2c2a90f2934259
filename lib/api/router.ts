/**
 * The /api/v1 router (issue 44 step 4): patterns compiled from the contracts' paths (`{param}` segments; static
 * segments win over parameters, as Next's App Router resolved the route folders), matched on the raw path. An
 * unknown path answers 404 and a known path with another method 405 with `Allow`, both in the API's error
 * body, before any authentication; HEAD runs GET without its body; OPTIONS answers 204 with `Allow`. Then the
 * matched row's envelope (lib/api/envelope.ts).
 */
import { noteRoute } from '@/lib/ops/request-context';
import { routeMatcher } from '@/lib/ops/routes';
import { errorAnswer, type ApiAnswer, type ApiRequest, type ApiRoute } from './envelope';
import { requestIdFrom } from '@/lib/ops/request-id';
import { API_ROUTES } from './routes';

export const API_PREFIX = '/api/v1';

/** Whether the node:http front hands this path to the API. */
export function isApiPath(pathname: string): boolean {
  return pathname === API_PREFIX || pathname.startsWith(API_PREFIX + '/');
}

interface Compiled {
  /** The route's label for metrics and logs, as Next's folder was named: `/api/v1/policies/[name]`. */
  pattern: string;
  /** Segment index → parameter name. */
  params: [number, string][];
  methods: Map<string, ApiRoute>;
  allow: string;
}

function compile(routes: readonly ApiRoute[]) {
  const byPattern = new Map<string, Compiled>();
  for (const route of routes) {
    const segs = (API_PREFIX + route.contract.path).split('/').filter(Boolean);
    const pattern = '/' + segs.map((s) => s.replace(/^\{(.+)\}$/, '[$1]')).join('/');
    let c = byPattern.get(pattern);
    if (!c) byPattern.set(pattern, (c = { pattern, params: segs.flatMap((s, i): [number, string][] => (/^\{.+\}$/.test(s) ? [[i, s.slice(1, -1)]] : [])), methods: new Map(), allow: '' }));
    if (c.methods.has(route.contract.method)) throw new Error(`two rows for ${route.contract.method} ${route.contract.path}`);
    c.methods.set(route.contract.method, route);
  }
  for (const c of byPattern.values()) {
    const methods = new Set([...c.methods.keys(), ...(c.methods.has('GET') ? ['HEAD'] : []), 'OPTIONS']);
    c.allow = [...methods].sort().join(', ');
  }
  return { match: routeMatcher([...byPattern.keys()]), byPattern };
}

let compiled: ReturnType<typeof compile> | undefined;

/** A malformed escape (a stray '%') is kept as written, so validation can name it instead of a 500. */
function safeDecode(v: string): string {
  try {
    return decodeURIComponent(v);
  } catch {
    return v;
  }
}

/** Serves one /api/v1 request (the node adapter and the tests call this). */
export async function handleApi(req: ApiRequest): Promise<ApiAnswer> {
  compiled ??= compile(API_ROUTES);
  const pattern = compiled.match(req.path);
  const c = pattern ? compiled.byPattern.get(pattern) : undefined;
  if (!c) return errorAnswer(req, 404, `No such API path: ${req.path.slice(0, 200)}`);
  noteRoute(c.pattern);
  const method = req.method.toUpperCase();
  if (method === 'OPTIONS') return { status: 204, headers: { allow: c.allow, 'x-request-id': requestIdFrom(req.header('x-request-id')) }, body: '' };
  const route = c.methods.get(method === 'HEAD' ? 'GET' : method);
  if (!route) return errorAnswer(req, 405, `Method ${method.slice(0, 20)} is not allowed on ${c.pattern}`, { allow: c.allow });
  const segs = req.path.split('/').filter(Boolean);
  const params: Record<string, string> = {};
  for (const [i, name] of c.params) params[name] = safeDecode(segs[i]);
  const out = await route.run(req, params);
  return method === 'HEAD' ? { ...out, body: '' } : out;
}

