import type { Metadata } from 'next';
import { requireAccess } from '@/lib/authn/session';
import { tokensFor } from '@/lib/services/users';
import { AdminTokens } from '@/components/admin-tokens';
import { PageHeader } from '@/components/page-header';

export const metadata: Metadata = { title: 'API tokens' };
export const dynamic = 'force-dynamic';

export default async function TokensPage() {
  const { tokens, forEveryUser } = await tokensFor(await requireAccess());
  return (
    <>
      <PageHeader title="API tokens" description={forEveryUser ? 'Every token in the console. Secrets are stored hashed and shown once.' : 'Your tokens for the API. Secrets are stored hashed and shown once.'} />
      <AdminTokens tokens={tokens} forEveryUser={forEveryUser} />
    </>
  );
}
