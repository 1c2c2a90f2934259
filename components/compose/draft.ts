import type { IncludeSource } from '@/lib/validation/compose';

export type Include = { name: string; source: IncludeSource };

/** Everything the compose form holds, as typed (JSON fields are text until they parse). */
export interface ComposeDraft {
  policy: string;
  parentMode: 'new' | 'revision';
  parentRevision: string;
  runList: string;
  cookbooks: string;
  defaults: string;
  overrides: string;
  includes: Include[];
}

export const EMPTY_DRAFT: Omit<ComposeDraft, 'policy'> = { parentMode: 'new', parentRevision: '', runList: '', cookbooks: '{}', defaults: '{}', overrides: '{}', includes: [] };

function parseJson(text: string, label: string): { value?: Record<string, unknown>; error?: string } {
  if (!text.trim()) return { value: {} };
  try {
    const v = JSON.parse(text);
    if (!v || typeof v !== 'object' || Array.isArray(v)) return { error: `${label} must be a JSON object` };
    return { value: v };
  } catch (e) {
    return { error: `${label}: ${(e as Error).message}` };
  }
}

/**
 * The request body of POST /api/v1/policies/{name}/compose for a draft, or
 * what keeps the draft from being one (a JSON field that does not parse);
 * `hasContent`: something to save (an include, a parent revision to re-lock,
 * or a parent with a run list, cookbooks or attributes).
 */
export function composeBody(d: ComposeDraft): { body: { parent: Record<string, unknown>; includes: Include[] } | null; error: string | null; hasContent: boolean } {
  if (d.parentMode === 'revision') {
    if (!d.parentRevision) return { body: null, error: 'Choose the parent revision', hasContent: false };
    return { body: { parent: { revision: d.parentRevision }, includes: d.includes }, error: null, hasContent: true };
  }
  const c = parseJson(d.cookbooks, 'Cookbook locks');
  const a = parseJson(d.defaults, 'Default attributes');
  const o = parseJson(d.overrides, 'Override attributes');
  const error = c.error ?? a.error ?? o.error;
  if (error) return { body: null, error, hasContent: false };
  const run_list = d.runList
    .split(/[\n,]/)
    .map((x) => x.trim())
    .filter(Boolean);
  const parent = { run_list, cookbook_locks: c.value, default_attributes: a.value, override_attributes: o.value };
  const hasContent = d.includes.length > 0 || run_list.length > 0 || [c.value, a.value, o.value].some((v) => !!v && Object.keys(v).length > 0);
  return { body: { parent, includes: d.includes }, error: null, hasContent };
}
