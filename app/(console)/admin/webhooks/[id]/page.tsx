import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { requireAccess } from '@/lib/authn/session';
import { isAppError } from '@/lib/errors';
import { getWebhook, listWebhookDeliveries } from '@/lib/services/webhooks';
import { EmptyState, PageHeader } from '@/components/page-header';
import { WebhookDeliveries } from '@/components/webhook-deliveries';
import { SendTestEvent } from '@/components/webhook-mutations';

export const metadata: Metadata = { title: 'Webhook deliveries' };
export const dynamic = 'force-dynamic';

export default async function WebhookDeliveriesPage({ params }: { params: Promise<{ id: string }> }) {
  const access = await requireAccess();
  const { id } = await params;
  const webhookId = decodeURIComponent(id);
  // The service asks the permission table (`webhooks.manage`) before it looks the webhook up.
  const w = await getWebhook(access, webhookId).catch((e) => (isAppError(e) && (e.status === 404 || e.status === 403) ? (e.status as 403 | 404) : Promise.reject(e)));
  if (w === 403) return <EmptyState title="Admins only">Only admins see webhook deliveries.</EmptyState>;
  if (w === 404) return notFound();
  const deliveries = await listWebhookDeliveries(access, webhookId);
  return (
    <>
      <PageHeader
        title={<>Deliveries: {w.name || w.url}</>}
        description={
          <>
            <Link className="text-indigo-700 underline" href="/admin/webhooks">
              All webhooks
            </Link>{' '}
            · <span className="mono break-all">{w.url}</span>
          </>
        }
        actions={<SendTestEvent id={w.id} />}
      />
      <WebhookDeliveries deliveries={deliveries} />
    </>
  );
}
