import type { ReactNode } from 'react';
import { requireAccess } from '@/lib/authn/session';
import { demoAdminWarning } from '@/lib/seed/demo-seed-policy';
import { AdminTabs } from '@/components/admin-tabs';
import { requestAdminAreas } from '@/lib/services/admin-areas';
import { adminHref } from '@/components/admin-tab-list';

export default async function AdminLayout({ children }: { children: ReactNode }) {
  const access = await requireAccess();
  const [warning, areas] = await Promise.all([access.isAdmin ? demoAdminWarning() : null, requestAdminAreas(access)]);
  return (
    <div>
      {warning && (
        <p role="alert" className="mb-4 rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm font-semibold text-red-800">
          {warning}
        </p>
      )}
      {/* Only the pages this user may use; someone with only their own API tokens (the account menu's link) gets no tabs. */}
      {adminHref(areas) && <AdminTabs areas={areas} />}
      {children}
    </div>
  );
}
