import type { Metadata } from 'next';
import { requireAccess } from '@/lib/auth/session';
import { Placeholder } from '@/components/page-header';

export const metadata: Metadata = { title: 'Resource map' };

export default async function Page() {
  await requireAccess();
  return <Placeholder title="Resource map">Preview Chef resource-map locking: which class each resource name resolves to on a node, and what each Chef version mode would do.</Placeholder>;
}
