import type { ReactNode } from 'react';
import { requireAccess } from '@/lib/authn/session';
import { demoAdminWarning } from '@/lib/seed/demo-seed-policy';
import { AdminTabs } from '@/components/admin-tabs';

export default async function AdminLayout({ children }: { children: ReactNode }) {
  const access = await requireAccess();
  const warning = access.isAdmin ? await demoAdminWarning() : null;
  return (
    <div>
      {warning && (
        <p role="alert" className="mb-4 rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm font-semibold text-red-800">
          {warning}
        </p>
      )}
      <AdminTabs />
      {children}
    </div>
  );
}
