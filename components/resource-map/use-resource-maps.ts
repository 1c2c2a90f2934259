import { useDeferredValue, useMemo } from 'react';
import { resolveResourceMap, type NodeFacts, type Registration, type ResolveResourceMapResult, type ResourceMapMode } from '@/lib/domain/resource-map';
import { ZResolveResourceMapInput } from '@/lib/validation/previews';
import { zodErrors } from '@/lib/validation/zod-errors';

export type ResourceMapPreview = { data: ResolveResourceMapResult; error: null } | { data: null; error: string };

/**
 * The resource-map engine run in the browser, once per mode: every input is
 * local (the node's facts, the Chef version, the registrations being edited),
 * so the comparison needs no request. The schema of
 * POST /api/v1/resource-map/preview checks it first, with the same messages.
 * `input` must keep its identity while unchanged (memoise it): it is deferred.
 */
export function useResourceMaps(modes: readonly ResourceMapMode[], input: { chefVersion: string; node: NodeFacts; registrations: Registration[] }): ResourceMapPreview[] {
  const deferred = useDeferredValue(input);
  return useMemo(
    () =>
      modes.map((mode): ResourceMapPreview => {
        const parsed = ZResolveResourceMapInput.safeParse({ mode, ...deferred });
        if (!parsed.success) return { data: null, error: zodErrors(parsed.error).map((e) => `${e.path}: ${e.message}`).join('; ') };
        return { data: resolveResourceMap(parsed.data), error: null };
      }),
    [modes, deferred],
  );
}
