import type { z } from 'zod';
import type { FieldError } from '@/lib/errors';

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

/** zod issues as field errors: a JSON pointer and a message that names the field and the rule. */
export function zodErrors(error: z.ZodError): FieldError[] {
  return (error.issues as Issue[]).flatMap((i) => flatten(i)).map((i) => {
    const path = '/' + i.path.map(String).join('/');
    const field = i.path.length ? i.path.join('.') : 'body';
    const rule = i.code === 'invalid_type' && /received undefined/.test(i.message) ? 'is required' : i.message;
    const message = i.code === 'unrecognized_keys' ? `${field === 'body' ? 'Unknown' : field + ': unknown'} field(s) ${i.keys.map((k) => `'${k}'`).join(', ')}` : `${field} ${rule}`;
    return { path: i.code === 'unrecognized_keys' && i.keys.length === 1 ? `${path === '/' ? '' : path}/${i.keys[0]}` : path === '/' ? '' : path, message };
  });
}
