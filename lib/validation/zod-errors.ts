import type { z } from 'zod';
import type { FieldError } from '@/lib/errors';
import { jsonPointer } from '@/lib/domain/shared/json-pointer';

type Issue = z.core.$ZodIssue;

/**
 * A union that matched no branch reports one issue list per branch; the branch
 * that got furthest (the deepest path) is the one the caller meant, so its
 * issues are reported, under the union's own path. "parent Invalid input"
 * becomes "parent.cookbook_locks.nginx.identifier is required".
 */
function flatten(issue: Issue, prefix: PropertyKey[] = []): Issue[] {
  const here = [...prefix, ...issue.path];
  if (issue.code === 'invalid_union' && issue.errors.length > 0) {
    const depth = (branch: Issue[]) => Math.max(...branch.map((b) => b.path.length + (b.code === 'unrecognized_keys' ? 0 : 1)));
    const best = [...issue.errors].sort((a, b) => depth(b) - depth(a))[0];
    return best.flatMap((b) => flatten(b, here));
  }
  return [{ ...issue, path: here } as Issue];
}

/** zod issues as field errors: an RFC 6901 pointer to the field the client sent and a message that names it and the rule. */
export function zodErrors(error: z.ZodError): FieldError[] {
  return (error.issues as Issue[]).flatMap((i) => flatten(i)).map((i) => {
    const segments = i.path.map((s) => (typeof s === 'symbol' ? String(s.description) : s));
    const field = segments.length ? segments.join('.') : 'body';
    const rule = i.code === 'invalid_type' && /received undefined/.test(i.message) ? 'is required' : i.message;
    if (i.code === 'unrecognized_keys') {
      const message = `${field === 'body' ? 'Unknown' : field + ': unknown'} field(s) ${i.keys.map((k) => `'${k}'`).join(', ')}`;
      return { path: jsonPointer(i.keys.length === 1 ? [...segments, i.keys[0]] : segments), message };
    }
    return { path: jsonPointer(segments), message: `${field} ${rule}` };
  });
}
