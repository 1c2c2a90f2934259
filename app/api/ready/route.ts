import { NextResponse } from 'next/server';
import { readiness } from '@/lib/db/queries/readiness';
import { APP_VERSION } from '@/lib/version';

export const dynamic = 'force-dynamic';

/**
 * Readiness, for load balancers and orchestrators (no login): 200 when the
 * database answers and every migration this version ships is applied and
 * none failed; 503 otherwise (the instance should get no traffic yet).
 * Liveness is /api/health.
 */
export async function GET() {
  const r = await readiness();
  return NextResponse.json(
    { status: r.ready ? 'ready' : 'not-ready', version: APP_VERSION, database: r.database, migrations: r.migrations },
    { status: r.ready ? 200 : 503, headers: { 'cache-control': 'no-store' } },
  );
}
