'use client';

import { useRouter } from 'next/navigation';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useActionMutation } from '@/lib/actions/use-action-mutation';
import { ApiError, fetchJson } from '@/lib/api/client';
import { shortId } from '@/lib/format';
import type { ComposeResult } from '@/lib/services/compose';
import type { ComposeOptions } from '@/lib/types/compose';
import { ComposePreview } from './compose/compose-preview';
import type { GuardOverrides } from './guard-answer';
import { composeBody, EMPTY_DRAFT, type ComposeDraft } from './compose/draft';
import { IncludesSection } from './compose/includes-section';
import { ParentSection } from './compose/parent-section';
import { useDebouncedValue } from './use-debounced-value';

const composeUrl = (policy: string) => `/api/v1/policies/${encodeURIComponent(policy)}/compose`;

/**
 * Compose a policy from a parent and includes (include_policy). The preview
 * is the server's merge of exactly what the form holds, requested once the
 * form has been still for 400 ms (a git include is read from its repository
 * per request: never per keystroke); a newer request cancels the one in
 * flight. Saving posts the same body with `save: true`.
 */
export function ComposeEditor({ options, initialPolicy }: { options: ComposeOptions; initialPolicy?: string }) {
  const router = useRouter();
  // Opens empty: nothing is pre-selected, so nothing can be saved by accident.
  const [draft, setDraft] = useState<ComposeDraft>({ policy: initialPolicy ?? '', ...EMPTY_DRAFT });
  const [saveGroup, setSaveGroup] = useState('');
  // Issue 29: the overrides the guard's answer for "save into stage" asks for (freeze, gate, missing artifacts).
  const [overrides, setOverrides] = useState<GuardOverrides>({ freeze: '', gate: '' });
  const [artifactReason, setArtifactReason] = useState('');
  const set = (patch: Partial<ComposeDraft>) => setDraft((d) => ({ ...d, ...patch }));
  const { policy } = draft;
  const { body, error, hasContent } = composeBody(draft);
  const info = options.policies.find((p) => p.name === policy);

  // The request as text: the debounce compares it by value, and it is the query's key.
  // With a stage chosen, the preview also asks what saving into it would do (the guard's dry run, issue 29).
  const request = body && policy ? JSON.stringify({ policy, body: saveGroup ? { ...body, group: saveGroup } : body }) : null;
  const settled = useDebouncedValue(request, 400);
  const preview = useQuery({
    queryKey: ['compose', settled],
    enabled: !!settled,
    queryFn: ({ signal }) => {
      const { policy: p, body: b } = JSON.parse(settled!) as { policy: string; body: object };
      return fetchJson<ComposeResult>(composeUrl(p), { method: 'POST', body: b, signal });
    },
    placeholderData: keepPreviousData,
    retry: false,
  });
  // What is shown is the preview of exactly what the form holds: only then may it be saved.
  const current = !!request && settled === request && !preview.isPlaceholderData && !preview.isFetching;
  const err = preview.error instanceof ApiError ? preview.error : preview.error ? new ApiError(0, { error: [(preview.error as Error).message] }) : null;

  const save = useActionMutation(
    () => {
      const guard = preview.data?.guard;
      const overrideReason = [guard?.needs.includes('freeze_override_reason') ? overrides.freeze.trim() : '', guard?.missing_artifacts.length ? artifactReason.trim() : ''].filter(Boolean).join('; ');
      const gateOverride = guard?.needs.includes('gate_override_reason') ? overrides.gate.trim() : '';
      return fetchJson<ComposeResult>(composeUrl(policy), {
        method: 'POST',
        body: {
          ...body,
          save: true,
          ...(saveGroup
            ? { group: saveGroup, expected_revision_id: options.active[policy]?.[saveGroup] ?? null, ...(overrideReason ? { override_reason: overrideReason } : {}), ...(gateOverride ? { gate_override_reason: gateOverride } : {}) }
            : {}),
        },
      });
    },
    {
      success: (r) =>
        r.request
          ? `Saved revision ${shortId(r.saved!.revisionId)} of ${policy}; ${saveGroup} is protected, so a promotion request was opened (${r.request.approvals_required} approval${r.request.approvals_required === 1 ? '' : 's'} needed) and nothing moved yet`
          : `Saved revision ${shortId(r.saved!.revisionId)} of ${policy}${saveGroup ? ` and pointed ${saveGroup} at it` : ''}`,
      // A request opened: its page shows it (and who may approve); otherwise the saved revision.
      then: (r) => router.push(r.request ? `/requests/${encodeURIComponent(r.request.id)}` : `/policies/${encodeURIComponent(policy)}/revisions/${encodeURIComponent(r.saved!.revisionId)}`),
      refresh: false,
    },
  );

  return (
    <div className="grid gap-4 xl:grid-cols-[minmax(0,1fr)_minmax(0,1.1fr)]">
      <div className="space-y-4">
        <ParentSection options={options} draft={draft} set={set} error={error} />
        <IncludesSection options={options} includes={draft.includes} setIncludes={(includes) => set({ includes })} />
      </div>
      <ComposePreview
        policy={policy}
        data={preview.data}
        err={err}
        updating={preview.isFetching || (!!request && settled !== request)}
        canSave={!!info?.canSave || (!info && options.canCreate)}
        canSubmit={hasContent && current && !!preview.data && !err}
        saving={save.isPending}
        stages={options.stages}
        saveGroup={saveGroup}
        setSaveGroup={setSaveGroup}
        overrides={overrides}
        setOverrides={setOverrides}
        artifactReason={artifactReason}
        setArtifactReason={setArtifactReason}
        onSave={() => save.mutate(undefined)}
      />
    </div>
  );
}
