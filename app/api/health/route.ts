import { NextResponse } from 'next/server';
import { databaseIsUp, databaseWriteState } from '@/lib/db/queries/health';
import { APP_VERSION } from '@/lib/version';

export const dynamic = 'force-dynamic';

/**
 * Liveness and database check; needs no login so load balancers can call it.
 * A database that answers reads but refuses writes is reported as such, with
 * 503: sign-ins, uploads and promotions would all fail (issue 17, item 15).
 */
export async function GET() {
  const up = await databaseIsUp();
  const writes = up ? await databaseWriteState() : 'down';
  const ok = up && writes !== 'read-only' && writes !== 'down';
  const database = !up ? 'down' : writes === 'read-only' ? 'read-only' : 'up';
  return NextResponse.json({ status: ok ? 'ok' : up ? 'degraded' : 'unavailable', version: APP_VERSION, database, writes }, { status: ok ? 200 : 503 });
}
