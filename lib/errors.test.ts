import { describe, expect, it } from 'vitest';
import { asAppError, isWriteConflictError } from './errors';

describe('database errors that mean "retry"', () => {
  it('a deadlock or serialization failure (P2034, 40P01, 40001) is a 409', () => {
    for (const e of [
      Object.assign(new Error('Transaction failed due to a write conflict or a deadlock'), { code: 'P2034' }),
      Object.assign(new Error('x'), { cause: { kind: 'TransactionWriteConflict' } }),
      Object.assign(new Error('x'), { cause: { originalCode: '40P01' } }),
    ]) {
      expect(isWriteConflictError(e)).toBe(true);
      const mapped = asAppError(e);
      expect(mapped?.status).toBe(409);
      expect(mapped?.message).toMatch(/nothing was changed.*Retry/);
    }
  });

  it('no free connection to start a transaction (P2028) is a 503 with Retry-After', () => {
    const mapped = asAppError(Object.assign(new Error('Transaction API error: Unable to start a transaction in the given time.'), { code: 'P2028' }));
    expect(mapped?.status).toBe(503);
    expect(mapped?.details?.retryAfter).toBe(2);
  });

  it('other errors stay unknown (a 500)', () => {
    expect(asAppError(new Error('boom'))).toBeNull();
    expect(isWriteConflictError(Object.assign(new Error('x'), { code: 'P2002' }))).toBe(false);
  });
});
