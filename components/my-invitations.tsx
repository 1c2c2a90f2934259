'use client';

import { useState } from 'react';
import { runAction } from '@/lib/actions/client';
import { useActionMutation } from '@/lib/actions/use-action-mutation';
import { respondToInvitationAction } from '@/lib/actions/chef/invitation-actions';
import type { MyInvitationDto } from '@/lib/services/organizations';
import { ConfirmDialog } from './modal';
import { Time } from './time';

/**
 * Issue 43: the signed-in user's pending invitations to Chef organizations (made by an organization's admin in
 * Admin → Organizations or with `knife org user invite`), each with Accept and Decline. Shown at the top of every
 * console page while any is pending, and on the "not a member" page of someone outside the organization.
 */
export function MyInvitations({ invitations, home }: { invitations: MyInvitationDto[]; home: string }) {
  const [declining, setDeclining] = useState<MyInvitationDto | null>(null);
  const respond = useActionMutation((v: { id: string; response: 'accept' | 'reject' }) => runAction(respondToInvitationAction, v), {
    success: (r) => (r.response === 'accept' ? `You are now a member of organization ${r.organization}` : `Declined the invitation to ${r.organization}`),
    then: () => setDeclining(null),
  });
  if (!invitations.length) return null;
  return (
    <section aria-labelledby="my-invitations-h" className="mb-5 rounded-lg border border-indigo-200 bg-indigo-50 p-4 text-slate-900" data-testid="my-invitations">
      <h2 id="my-invitations-h" className="font-semibold">
        {invitations.length === 1 ? 'You are invited to a Chef organization' : `You are invited to ${invitations.length} Chef organizations`}
      </h2>
      <ul className="mt-2 space-y-2">
        {invitations.map((i) => (
          <li key={i.id} className="flex flex-wrap items-center gap-x-3 gap-y-1" data-invitation={i.organization}>
            <span>
              <b>{i.organization}</b>
              {i.fullName && i.fullName !== i.organization ? ` (${i.fullName})` : ''}
              {i.organization === home ? ', the organization this console serves' : ''}: invited by {i.inviter ?? 'a user who no longer exists'} on <Time iso={i.createdAt} />.
            </span>
            {i.valid ? (
              <span className="text-sm text-slate-700">Accepting makes you a member: you then see {i.organization === home ? 'its stages, policies and nodes here' : 'its clients and groups with Chef tools'}, with the rights its admins give you.</span>
            ) : (
              <span className="text-sm font-medium text-amber-900">No longer valid: whoever invited you may no longer invite into {i.organization}. Ask its admins to invite you again.</span>
            )}
            <span className="ml-auto flex gap-2">
              {i.valid && (
                <button type="button" className="btn btn-primary py-1 text-sm" disabled={respond.isPending} onClick={() => respond.mutate({ id: i.id, response: 'accept' })}>
                  Accept<span className="sr-only"> the invitation to {i.organization}</span>
                </button>
              )}
              <button type="button" className="btn py-1 text-sm" disabled={respond.isPending} onClick={() => setDeclining(i)}>
                Decline<span className="sr-only"> the invitation to {i.organization}</span>
              </button>
            </span>
          </li>
        ))}
      </ul>
      {declining && (
        <ConfirmDialog
          title={`Decline the invitation to ${declining.organization}?`}
          confirmLabel="Decline invitation"
          cancelLabel="Keep it"
          pending={respond.isPending}
          onConfirm={() => respond.mutate({ id: declining.id, response: 'reject' })}
          onClose={() => setDeclining(null)}
        >
          The invitation goes away; to join {declining.organization} later, one of its admins must invite you again.
        </ConfirmDialog>
      )}
    </section>
  );
}
