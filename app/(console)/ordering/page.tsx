import type { Metadata } from 'next';
import { requireAccess } from '@/lib/authn/session';
import { scenariosFor } from '@/lib/services/ordering';
import { OrderingEditor } from '@/components/ordering-editor';
import { PageHeader } from '@/components/page-header';

export const metadata: Metadata = { title: 'Directive ordering' };
export const dynamic = 'force-dynamic';

export default async function OrderingPage() {
  const access = await requireAccess();
  const scenarios = await scenariosFor(access);
  return (
    <>
      <PageHeader
        title="Directive ordering"
        description="Rudder's rules for which directives a node gets, in which order and with which merged values — computed exactly (Java's case-insensitive name order, priority 0 highest), explained line by line."
      />
      <OrderingEditor scenarios={scenarios} />
    </>
  );
}
