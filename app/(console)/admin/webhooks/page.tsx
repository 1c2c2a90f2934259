import type { Metadata } from 'next';
import { requireAccess } from '@/lib/authn/session';
import { listWebhooks, WEBHOOK_EVENTS } from '@/lib/services/webhooks';
import { AdminWebhooks } from '@/components/admin-webhooks';
import { EmptyState, PageHeader } from '@/components/page-header';

export const metadata: Metadata = { title: 'Webhooks' };
export const dynamic = 'force-dynamic';

export default async function WebhooksPage() {
  const access = await requireAccess();
  if (!access.isAdmin) return <EmptyState title="Admins only">Ask an admin to send the console&apos;s events (requests, approvals, freezes, bad revisions) to a webhook.</EmptyState>;
  return (
    <>
      <PageHeader
        title="Webhooks"
        description="Events are queued in the same transaction as the change and delivered in the background, signed, with retries and growing pauses between them; each is sent once even with several console instances."
      />
      <AdminWebhooks webhooks={await listWebhooks(access)} events={[...WEBHOOK_EVENTS]} />
    </>
  );
}
