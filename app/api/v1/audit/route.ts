import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { auditRoute } from '@/lib/api/contracts/admin';
import { assertCan } from '@/lib/auth/permissions';
import { auditCsv, listAudit } from '@/lib/db/queries/audit';

export const dynamic = 'force-dynamic';

/** ?actor=&stage=&policy=&action=&since=&until=&limit=&cursor=&format=csv|json */
export const GET = apiRoute(auditRoute, async (_req, { access, query: { format, ...filter } }) => {
  assertCan(access, 'audit.read');
  const page = await listAudit(access, filter);
  if (format === 'csv') {
    return new NextResponse(auditCsv(page.events), { headers: { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': 'attachment; filename="audit.csv"' } });
  }
  return NextResponse.json(page);
});
