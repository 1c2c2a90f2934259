import type { ReactNode } from 'react';
import { requireAccess } from '@/lib/authn/session';
import { can } from '@/lib/auth/permissions';
import { demoAdminWarning } from '@/lib/seed/demo-seed-policy';
import { AdminTabs } from '@/components/admin-tabs';
import { requestAdminAreas } from '@/lib/services/organizations';
import { adminHref } from '@/components/admin-tab-list';

export default async function AdminLayout({ children }: { children: ReactNode }) {
  const access = await requireAccess();
  // The demo admin's warning asks for a fix in Admin → Users: shown to those who manage users.
  const [warning, areas] = await Promise.all([can(access, 'admin.users') ? demoAdminWarning() : null, requestAdminAreas(access)]);
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
