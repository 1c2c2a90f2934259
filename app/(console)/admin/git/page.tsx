import type { Metadata } from 'next';
import { requireAccess } from '@/lib/authn/session';
import { can } from '@/lib/auth/permissions';
import { gitLocalRoot, listGitRepositories, type GitRepositoryDto } from '@/lib/services/compose';
import { AdminGitRepositories } from '@/components/admin-git-repositories';
import { EmptyState, PageHeader } from '@/components/page-header';

export const metadata: Metadata = { title: 'Git repositories' };
export const dynamic = 'force-dynamic';

export default async function GitRepositoriesPage() {
  const access = await requireAccess();
  if (!can(access, 'git.manage')) return <EmptyState title="Admins only">Ask an admin to register a git repository for compose.</EmptyState>;
  const repositories = (await listGitRepositories(access)) as GitRepositoryDto[];
  return (
    <>
      <PageHeader
        title="Git repositories"
        description="Compose reads git includes only from these repositories, by name. The server fetches them with size and time limits; credentials are stored encrypted and never shown or written into locks."
      />
      <AdminGitRepositories repositories={repositories} localRoot={!!gitLocalRoot()} />
    </>
  );
}
