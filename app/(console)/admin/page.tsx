import type { Metadata } from 'next';
import { requireAccess } from '@/lib/auth/session';
import { Placeholder } from '@/components/page-header';

export const metadata: Metadata = { title: 'Admin' };

export default async function Page() {
  await requireAccess();
  return <Placeholder title="Admin">Permissions matrix (stages × users and teams), users, teams and API tokens.</Placeholder>;
}
