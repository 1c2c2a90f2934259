import type { Metadata } from 'next';
import { requireAccess } from '@/lib/auth/session';
import { Placeholder } from '@/components/page-header';

export const metadata: Metadata = { title: 'Directive ordering' };

export default async function Page() {
  await requireAccess();
  return <Placeholder title="Directive ordering">Preview Rudder-style directive ordering: which directives a node gets, in which order and with which merged values.</Placeholder>;
}
