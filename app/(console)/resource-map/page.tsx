import type { Metadata } from 'next';
import { requireAccess } from '@/lib/authn/session';
import { PageHeader } from '@/components/page-header';
import { ResourceMapEditor } from '@/components/resource-map-editor';

export const metadata: Metadata = { title: 'Resource map' };
export const dynamic = 'force-dynamic';

export default async function ResourceMapPage({ searchParams }: { searchParams: Promise<{ cookbook?: string; resource?: string }> }) {
  await requireAccess();
  const { cookbook, resource } = await searchParams;
  return (
    <>
      <PageHeader
        title="Resource map"
        description="Which class each Chef resource name resolves to on a node, and what happens when a cookbook claims a name core has locked — under the RFC's design, Chef 14 and Chef 15+. Resources marked preview allow cookbook overrides."
      />
      <ResourceMapEditor initial={cookbook && resource ? { cookbook, resource } : undefined} />
    </>
  );
}
