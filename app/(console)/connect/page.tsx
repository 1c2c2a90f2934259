import type { Metadata } from 'next';
import { headers } from 'next/headers';
import { requireAccess } from '@/lib/authn/session';
import { chefOrg } from '@/lib/config';
import { connectChoices, ownKeys } from '@/lib/services/keys';
import { keyFingerprint } from '@/lib/services/clients';
import { serverCertificateTrust } from '@/lib/ops/certificate-trust';
import { validatorName } from '@/lib/services/organizations';
import { ChefConnect } from '@/components/chef-connect';
import { PageHeader } from '@/components/page-header';

export const metadata: Metadata = { title: 'Connect Chef tools' };
export const dynamic = 'force-dynamic';

const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) ?? '';

/**
 * The exact config.rb / client.rb lines for this server and organization, and the signed-in user's Chef keys.
 * Issue 43: client.rb names a stage and policy chosen among those the reader may view (`?stage=&policy=`, a
 * deep link), and when the console serves HTTPS with its own certificate (TLS_CERT_FILE) the page says how
 * knife and chef-client come to trust it.
 */
export default async function ConnectPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const access = await requireAccess();
  const sp = await searchParams;
  const choices = await connectChoices(access);
  // The stage asked for when the reader may view it, else the first that runs a policy; its policy likewise.
  const stage = choices.find((c) => c.stage === one(sp.stage)) ?? choices.find((c) => c.policies.length) ?? choices[0] ?? null;
  const policy = stage ? (stage.policies.find((p) => p === one(sp.policy)) ?? stage.policies[0] ?? null) : null;
  const trust = serverCertificateTrust();
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
        choices={choices}
        stage={stage?.stage ?? null}
        policy={policy}
        trust={trust}
        https={serverUrl.startsWith('https://') || !!trust}
        keys={keys.map((k) => ({ name: k.name, expired: k.expired, expiresAt: k.expiresAt?.toISOString() ?? null, createdAt: k.createdAt.toISOString(), lastUsedAt: k.lastUsedAt?.toISOString() ?? null, fingerprint: keyFingerprint(k.publicKey) }))}
      />
    </>
  );
}
