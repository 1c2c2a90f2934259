import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { zodErrors } from './zod-errors';

describe('zodErrors', () => {
  const Z = z.object({
    parent: z.union([z.object({ revision: z.string() }).strict(), z.object({ run_list: z.array(z.string()), cookbook_locks: z.record(z.string(), z.object({ version: z.string(), identifier: z.string() })) }).strict()]),
  });

  it('names the field path inside the union branch the input meant', () => {
    const r = Z.safeParse({ parent: { run_list: [], cookbook_locks: { nginx: { version: '1.0.0' } } } });
    expect(r.success).toBe(false);
    expect(zodErrors(r.error!)).toEqual([{ path: '/parent/cookbook_locks/nginx/identifier', message: 'parent.cookbook_locks.nginx.identifier is required' }]);
  });

  it('keeps plain issues as they were', () => {
    const r = z.object({ name: z.string().max(3, 'is at most 3 characters') }).safeParse({ name: 'abcd' });
    expect(zodErrors(r.error!)).toEqual([{ path: '/name', message: 'name is at most 3 characters' }]);
  });
});
