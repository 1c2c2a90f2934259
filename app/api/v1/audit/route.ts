import { NextResponse } from 'next/server';
import { apiRoute } from '@/lib/api/route';
import { assertCan } from '@/lib/auth/permissions';
import { auditCsv, listAudit, parseAuditFilter } from '@/lib/db/queries/audit';

export const dynamic = 'force-dynamic';

/** ?actor=&stage=&policy=&action=&since=&until=&limit=&cursor=&format=csv|json */
export const GET = apiRoute(async (req, { access }) => {
  assertCan(access, 'audit.read');
  const q = new URL(req.url).searchParams;
  const filter = parseAuditFilter(q);
  const page = await listAudit(access, filter);
  if (q.get('format') === 'csv') {
    return new NextResponse(auditCsv(page.events), { headers: { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': 'attachment; filename="audit.csv"' } });
  }
  return NextResponse.json(page);
});
