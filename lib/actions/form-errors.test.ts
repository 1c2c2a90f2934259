import { describe, expect, it } from 'vitest';
import { fieldKey, formErrorsFrom, formErrorsFromValidation } from './form-errors';
import { zodErrors } from '@/lib/validation/zod-errors';
import { ZRollbackInput } from '@/lib/validation/promotion';

/** The rollback action's own fields (its one schema, lib/validation/promotion.ts). */
const ZRollbackInputForTest = ZRollbackInput.pick({ toRevisionId: true, expectedRevisionId: true, reason: true });

describe('the form error shape { fieldErrors, formError? }', () => {
  it('keys field errors by the dotted path of the input field, unescaping RFC 6901 tokens', () => {
    expect(fieldKey('/includes/0/source/path')).toBe('includes.0.source.path');
    expect(fieldKey('/expected/a~1b')).toBe('expected.a/b');
    expect(fieldKey('')).toBe('');
  });

  it('from a service refusal (AppError): each field its rules, without repeating the field name; no form error when the fields say it all', () => {
    const parsed = ZRollbackInputForTest.safeParse({ reason: '  ', expectedRevisionId: 'bad id' });
    const errors = zodErrors(parsed.error!);
    const form = formErrorsFrom(errors[0].message, errors);
    expect(form).toEqual({ fieldErrors: { toRevisionId: ['is required'], expectedRevisionId: [expect.stringMatching(/may contain only/)], reason: ['is required for a rollback'] } });
  });

  it('a refusal about the whole form (a conflict, a permission) is the form error', () => {
    expect(formErrorsFrom("'production' changed since you looked", [])).toEqual({ fieldErrors: {}, formError: "'production' changed since you looked" });
    expect(formErrorsFrom('Body must be a JSON object', [{ path: '', message: 'Body must be a JSON object' }])).toEqual({ fieldErrors: {}, formError: 'Body must be a JSON object' });
  });

  it("from next-safe-action's formatted validation errors", () => {
    const ve = { _errors: [], reason: { _errors: ['is required for a rollback'] }, includes: { 0: { name: { _errors: ['Invalid input: expected string, received undefined'] } } } };
    expect(formErrorsFromValidation(ve)).toEqual({ fieldErrors: { reason: ['is required for a rollback'], 'includes.0.name': ['is required'] } });
    expect(formErrorsFromValidation({ _errors: ['give either group or revision'] })).toEqual({ fieldErrors: {}, formError: 'give either group or revision' });
  });
});
