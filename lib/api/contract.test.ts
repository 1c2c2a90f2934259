import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { pathInput, wireBody } from './contract';
import { zodErrors } from '@/lib/validation/zod-errors';
import { ZAddFreeze } from '@/lib/validation/stage-guards';
import { ZRollbackInput } from '@/lib/validation/promotion';

/** A service input schema as the services write them: camelCase, one definition of each rule. */
const ZInput = z.object({
  stage: z.string().regex(/^[a-z]+$/, 'must be lowercase'),
  expectedRevisionId: z.string().nullable(),
  overrideReason: z.string().trim().max(5, 'is at most 5 characters').optional(),
  freezeOverrideReason: z.string().optional(),
  dryRun: z.boolean().optional(),
  requestId: z.string().optional(),
});

describe('wireBody: the API body derived from the service input schema', () => {
  const body = wireBody(ZInput, { omit: ['stage', 'requestId'], alias: { freezeOverrideReason: 'overrideReason' }, ignored: { name: z.string().optional() } });

  it('takes the snake_case fields and gives the service its camelCase object (aliases filled, ignored fields dropped)', () => {
    expect(body.parse({ expected_revision_id: null, override_reason: ' why ', dry_run: true, name: 'knife' })).toEqual({ expectedRevisionId: null, overrideReason: 'why', freezeOverrideReason: 'why', dryRun: true });
    expect(body.parse({ expected_revision_id: 'r1' })).toEqual({ expectedRevisionId: 'r1' });
  });

  it("names the client's fields in its errors, by construction: the service's rule, the wire's name", () => {
    const bad = body.safeParse({ override_reason: 'too long here' });
    expect(zodErrors(bad.error!)).toEqual([
      { path: '/expected_revision_id', message: 'expected_revision_id is required' },
      { path: '/override_reason', message: 'override_reason is at most 5 characters' },
    ]);
  });

  it('refuses the camelCase spellings, omitted fields and aliases (strict)', () => {
    for (const extra of ['expectedRevisionId', 'stage', 'request_id', 'freeze_override_reason']) {
      const r = body.safeParse({ expected_revision_id: null, [extra]: 'x' });
      expect(r.success, extra).toBe(false);
      expect(zodErrors(r.error!)[0]).toEqual({ path: `/${extra}`, message: `Unknown field(s) '${extra}'` });
    }
  });

  it('the real contracts: a freeze window and a rollback keep their documented rules and messages', () => {
    const freeze = wireBody(ZAddFreeze, { omit: ['stage', 'requestId'] });
    expect(zodErrors(freeze.safeParse({ reason: '' }).error!).map((e) => e.message)).toEqual([
      'starts_at is required: an ISO 8601 date-time, e.g. 2026-12-24T00:00:00Z',
      'ends_at is required: an ISO 8601 date-time, e.g. 2026-12-24T00:00:00Z',
      'reason is required: say why the stage is frozen',
    ]);
    const rollback = wireBody(ZRollbackInput, { omit: ['policy', 'group', 'requestId'], alias: { freezeOverrideReason: 'overrideReason' } });
    expect(zodErrors(rollback.safeParse({ to_revision_id: 'r', expected_revision_id: null, reason: ' ' }).error!)).toEqual([{ path: '/reason', message: 'reason is required for a rollback' }]);
  });
});

describe('pathInput: service fields taken from the path', () => {
  it('maps each field to its path parameter and keeps the field rule', () => {
    const p = pathInput(ZInput, { stage: 'group' });
    expect(p.fields.map((f) => [f.field, f.param])).toEqual([['stage', 'group']]);
    expect(p.fields[0].schema.safeParse('Bad').success).toBe(false);
  });
});
