export const dynamic = 'force-dynamic';

const BODY = JSON.stringify({ status: 'ok' });

/**
 * The framework's own floor for the HTTP benchmarks (bench/floor.bench.ts): a
 * dynamic route that does no work. Off (404) unless the server runs with
 * BENCH_FLOOR=1, as the benchmark's scratch server does.
 */
export function GET() {
  if (process.env.BENCH_FLOOR !== '1') return new Response('Not found', { status: 404 });
  return new Response(BODY, { headers: { 'content-type': 'application/json' } });
}
