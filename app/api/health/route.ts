import { NextResponse } from 'next/server';
import { databaseIsUp } from '@/lib/db/queries/health';
import { APP_VERSION } from '@/lib/version';

export const dynamic = 'force-dynamic';

/** Liveness and database check; needs no login so load balancers can call it. */
export async function GET() {
  const ok = await databaseIsUp();
  return NextResponse.json({ status: ok ? 'ok' : 'unavailable', version: APP_VERSION, database: ok ? 'up' : 'down' }, { status: ok ? 200 : 503 });
}
