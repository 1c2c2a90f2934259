'use client';

import { useState } from 'react';
import { runAction } from '@/lib/actions/client';
import { useActionMutation } from '@/lib/actions/use-action-mutation';
import { updateOrgSettingsAction } from '@/lib/actions/admin/org-settings-actions';
import { dateTime } from '@/lib/format';
import type { OrgSettingsDto } from '@/lib/types/org-settings';
import { ConfirmDialog } from './modal';

/** The organization's client-rights setting: Chef's defaults, or stage isolation (admins change it; audited). */
export function OrgSettings({ settings, canEdit }: { settings: OrgSettingsDto; canEdit: boolean }) {
  const [confirm, setConfirm] = useState<boolean | null>(null);
  const save = useActionMutation((on: boolean) => runAction(updateOrgSettingsAction, { stage_isolation: on }), {
    success: (r) => (r.stage_isolation ? 'Stage isolation is on' : 'Stage isolation is off: Chef’s default client rights'),
    then: () => setConfirm(null),
  });
  const on = settings.stage_isolation;
  return (
    <section className="card space-y-2 p-4" aria-labelledby="client-rights">
      <h2 id="client-rights" className="font-medium">
        Client rights
      </h2>
      <p className="text-sm text-slate-600">
        By Chef’s defaults a client reads every node (search-based recipes depend on it), reads and updates itself, reads every policy and cookbook a node converges from, and creates and
        updates its own node. With stage isolation on, a client reads only the nodes, data bags and search results of its own stage (its node’s policy group).
      </p>
      <div className="flex flex-wrap items-center gap-3">
        <span className="text-sm" data-testid="stage-isolation-state">
          Stage isolation: <strong>{on ? 'on' : 'off'}</strong>
          {settings.updated_at && (
            <span className="text-slate-500">
              {' '}
              (changed {dateTime(settings.updated_at)}
              {settings.updated_by ? ` by ${settings.updated_by}` : ''})
            </span>
          )}
        </span>
        {canEdit && (
          <button type="button" className="btn" onClick={() => setConfirm(!on)} disabled={save.isPending}>
            {on ? 'Turn stage isolation off' : 'Turn stage isolation on'}
          </button>
        )}
      </div>
      {confirm !== null && (
        <ConfirmDialog
          title={confirm ? 'Turn stage isolation on?' : 'Turn stage isolation off?'}
          confirmLabel={confirm ? 'Isolate stages' : 'Use Chef’s defaults'}
          danger={confirm}
          pending={save.isPending}
          onConfirm={() => save.mutate(confirm)}
          onClose={() => setConfirm(null)}
        >
          {confirm
            ? 'From the next request on, each client sees only its own stage’s nodes, data bags and search results. Recipes that search other stages find nothing there.'
            : 'From the next request on, every client reads every node, data bag and search result again.'}
        </ConfirmDialog>
      )}
    </section>
  );
}
