import type { z } from 'zod';
import type { FieldError } from '@/lib/errors';

/** zod issues as field errors: a JSON pointer and a message that names the field and the rule. */
export function zodErrors(error: z.ZodError): FieldError[] {
  return error.issues.map((i) => {
    const path = '/' + i.path.map(String).join('/');
    const field = i.path.length ? i.path.join('.') : 'body';
    const message = i.code === 'unrecognized_keys' ? `${field === 'body' ? 'Unknown' : field + ': unknown'} field(s) ${i.keys.map((k) => `'${k}'`).join(', ')}` : `${field} ${i.message}`;
    return { path: i.code === 'unrecognized_keys' && i.keys.length === 1 ? `${path === '/' ? '' : path}/${i.keys[0]}` : path === '/' ? '' : path, message };
  });
}
