import type { Metadata } from 'next';
import { requireAccess } from '@/lib/authn/session';
import { isAppError } from '@/lib/errors';
import { listWebhooks, WEBHOOK_EVENTS } from '@/lib/services/webhooks';
import { AdminWebhooks } from '@/components/admin-webhooks';
import { EmptyState, PageHeader } from '@/components/page-header';

export const metadata: Metadata = { title: 'Webhooks' };
export const dynamic = 'force-dynamic';

export default async function WebhooksPage() {
  const access = await requireAccess();
  // The service asks the permission table (`webhooks.manage`); a refusal is this page's empty state.
  const webhooks = await listWebhooks(access).catch((e) => (isAppError(e) && e.status === 403 ? null : Promise.reject(e)));
  if (!webhooks) return <EmptyState title="Admins only">Ask an admin to send the console&apos;s events (requests, approvals, freezes, bad revisions) to a webhook.</EmptyState>;
  return (
    <>
      <PageHeader
        title="Webhooks"
        description="Events are queued in the same transaction as the change and delivered in the background, signed, with retries and growing pauses between them; each is sent once even with several console instances."
      />
      <AdminWebhooks webhooks={webhooks} events={[...WEBHOOK_EVENTS]} />
    </>
  );
}
