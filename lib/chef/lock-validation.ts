/**
 * Chef Server's own validation of a policy revision document (erchef's
 * oc_chef_policy_revision), with its exact messages: the organization routes
 * answer these first, one message, as Chef does. The console's validator runs
 * after it and may refuse more (every violation listed in `errors`).
 */
const NAME = /^[.A-Za-z0-9_:-]{1,255}$/;
const RUN_LIST_ITEM = /^recipe\[[.A-Za-z0-9_-]+::[.A-Za-z0-9_-]+\]$/;
const DOTTED = /^\d+\.\d+\.\d+$/;

function isObject(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

/** Chef's message for the first problem of a revision document, or null when Chef would accept it. */
export function chefLockProblem(text: string, urlName: string): string | null {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return 'invalid JSON';
  }
  if (!isObject(doc)) return 'invalid JSON';
  const field = (name: string, ok: (v: unknown) => boolean, invalid = `Field '${name}' invalid`) => (!(name in doc) ? `Field '${name}' missing` : ok(doc[name]) ? null : invalid);
  const str = (re: RegExp) => (v: unknown) => typeof v === 'string' && re.test(v);
  const problem =
    field('revision_id', str(NAME)) ??
    field('name', str(NAME)) ??
    field('run_list', (v) => Array.isArray(v) && v.every((i) => typeof i === 'string' && RUN_LIST_ITEM.test(i)), "Field 'run_list' is not a valid run list") ??
    field('cookbook_locks', isObject);
  if (problem) return problem;
  for (const lock of Object.values(doc.cookbook_locks as Record<string, unknown>)) {
    if (!isObject(lock)) return "Field 'cookbook_locks' invalid";
    if (!('identifier' in lock)) return "Field 'identifier' missing";
    if (!str(NAME)(lock.identifier)) return "Field 'identifier' invalid";
    if ('dotted_decimal_identifier' in lock && !str(DOTTED)(lock.dotted_decimal_identifier)) return "Field 'dotted_decimal_identifier' is not a valid version";
  }
  if (doc.name !== urlName) return `Field 'name' invalid : ${urlName} does not match ${doc.name}`;
  return null;
}
