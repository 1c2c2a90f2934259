import type { Metadata } from 'next';
import { requireAccess } from '@/lib/auth/session';
import { Placeholder } from '@/components/page-header';

export const metadata: Metadata = { title: 'Compose' };

export default async function Page() {
  await requireAccess();
  return <Placeholder title="Compose">Compose a policy from other policies' locks (include_policy): pick a parent, add includes from the server, an upload or git, and preview the merged run list, attributes and conflicts before saving.</Placeholder>;
}
