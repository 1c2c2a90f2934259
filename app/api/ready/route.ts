import { NextResponse } from 'next/server';
import { readiness } from '@/lib/db/queries/readiness';
import { fileStoreReadiness } from '@/lib/services/cookbooks';
import { APP_VERSION } from '@/lib/version';

export const dynamic = 'force-dynamic';

/**
 * Readiness, for load balancers and orchestrators (no login): 200 when the
 * database answers and every migration this version ships is applied and
 * none failed, and the cookbook file store answers (issue 46: the S3 bucket,
 * when FILE_STORE=s3 or files are kept there); 503 otherwise (the instance
 * should get no traffic yet). Liveness is /api/health.
 */
export async function GET() {
  const [r, files] = await Promise.all([readiness(), fileStoreReadiness()]);
  const ready = r.ready && files.status === 'up';
  return NextResponse.json(
    { status: ready ? 'ready' : 'not-ready', version: APP_VERSION, database: r.database, migrations: r.migrations, fileStore: files },
    { status: ready ? 200 : 503, headers: { 'cache-control': 'no-store' } },
  );
}
