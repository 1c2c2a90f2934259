import type { ReactNode } from 'react';
import { requireAccess } from '@/lib/auth/session';
import { AdminTabs } from '@/components/admin-tabs';

export default async function AdminLayout({ children }: { children: ReactNode }) {
  await requireAccess();
  return (
    <div>
      <AdminTabs />
      {children}
    </div>
  );
}
