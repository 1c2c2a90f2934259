'use client';

import { useQuery } from '@tanstack/react-query';
import { getJson } from './change-preview';

type ArtifactCheck = { missing_artifacts: string[]; to_requires_artifacts: boolean };

const q = encodeURIComponent;

/** Which cookbooks of what `to` would run are not on the server, and whether `to` refuses that. */
export function useArtifactCheck({ policy, from, to, cookbook }: { policy: string; from: string; to: string; cookbook?: string }) {
  return useQuery({
    queryKey: ['artifact-check', policy, from, to, cookbook ?? null],
    retry: false,
    queryFn: () => getJson<ArtifactCheck>(`/api/v1/policies/${q(policy)}/artifacts?from=${q(from)}&to=${q(to)}${cookbook ? `&cookbook=${q(cookbook)}` : ''}`),
  });
}

/**
 * The warning before the click: the `name identifier` pairs nodes in `to` would
 * fail to fetch. When `to` requires artifacts the promotion needs an override
 * reason (audited); the caller keeps its value and disables confirm without it.
 */
export function ArtifactWarning({
  check,
  to,
  overrideReason,
  onOverrideReason,
  errors,
}: {
  check: ReturnType<typeof useArtifactCheck>;
  to: string;
  overrideReason: string;
  onOverrideReason: (v: string) => void;
  /** What the server said about the override reason (`fieldErrors.overrideReason` of the promotion). */
  errors?: string[];
}) {
  if (check.isPending) return <p className="text-slate-600">Checking that every cookbook is on the server…</p>;
  if (check.isError) return <p className="text-red-800" role="alert">{(check.error as Error).message}</p>;
  const { missing_artifacts: missing, to_requires_artifacts: required } = check.data;
  if (!missing.length) {
    return (
      <p className="text-emerald-800" data-testid="artifacts-ok">
        ✓ Every cookbook it pins is on the server.
      </p>
    );
  }
  return (
    <div className={`rounded-md border p-3 ${required ? 'border-red-200 bg-red-50 text-red-900' : 'border-amber-200 bg-amber-50 text-amber-900'}`} role="alert" data-testid="artifacts-missing">
      <p className="font-medium">
        {missing.length} cookbook{missing.length === 1 ? ' is' : 's are'} not on the server: nodes in {to} would fail to fetch {missing.length === 1 ? 'it' : 'them'}.
      </p>
      <ul className="mono mt-1 list-disc pl-5 text-xs">
        {missing.map((m) => (
          <li key={m}>{m}</li>
        ))}
      </ul>
      {required && (
        <label className="mt-2 block text-xs font-semibold text-red-900">
          {to} requires every cookbook on the server. Upload them with chef push, or give an override reason (audited):
          <textarea
            className="input mt-1 h-14 w-full font-normal"
            value={overrideReason}
            onChange={(e) => onOverrideReason(e.target.value)}
            maxLength={1000}
            aria-label="Override reason"
            {...(errors?.length ? { 'aria-invalid': true, 'aria-describedby': 'override-reason-error' } : {})}
          />
        </label>
      )}
      {required && !!errors?.length && (
        <p id="override-reason-error" className="mt-1 text-xs font-medium text-red-700" data-field-error="overrideReason">
          {errors.join(' ')}
        </p>
      )}
    </div>
  );
}
