import type { Metadata } from 'next';
import { headers } from 'next/headers';
import { requireAccess } from '@/lib/authn/session';
import { chefOrg } from '@/lib/chef/router';
import { keyFingerprint } from '@/lib/db/queries/chef-pages';
import { validatorName } from '@/lib/services/chef-names';
import { ownKeys } from '@/lib/services/chef-user-keys';
import { ChefConnect } from '@/components/chef-connect';
import { PageHeader } from '@/components/page-header';

export const metadata: Metadata = { title: 'Connect Chef tools' };
export const dynamic = 'force-dynamic';

/** The exact config.rb / client.rb lines for this server and organization, and the signed-in user's Chef keys. */
export default async function ConnectPage() {
  const access = await requireAccess();
  const h = await headers();
  const serverUrl = process.env.PUBLIC_URL?.replace(/\/+$/, '') ?? `${h.get('x-forwarded-proto') ?? 'http'}://${h.get('host') ?? 'localhost:3000'}`;
  const { userName, keys } = await ownKeys(access);
  const org = chefOrg();
  return (
    <>
      <PageHeader title="Connect Chef tools" description="knife, chef push and chef-client talk to this console as they would to Chef Infra Server, signed with your keys." />
      <ChefConnect
        serverUrl={serverUrl}
        org={org}
        userName={userName}
        validatorName={validatorName(org)}
        keys={keys.map((k) => ({ name: k.name, expired: k.expired, expiresAt: k.expiresAt?.toISOString() ?? null, createdAt: k.createdAt.toISOString(), lastUsedAt: k.lastUsedAt?.toISOString() ?? null, fingerprint: keyFingerprint(k.publicKey) }))}
      />
    </>
  );
}
