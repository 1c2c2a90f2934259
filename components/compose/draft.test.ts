import { describe, expect, it } from 'vitest';
import { composeBody, EMPTY_DRAFT, type ComposeDraft } from './draft';

const draft = (patch: Partial<ComposeDraft> = {}): ComposeDraft => ({ policy: 'webapp', ...EMPTY_DRAFT, ...patch });

describe('composeBody', () => {
  it('an empty new parent is a valid body with nothing to save', () => {
    expect(composeBody(draft())).toEqual({ body: { parent: { run_list: [], cookbook_locks: {}, default_attributes: {}, override_attributes: {} }, includes: [] }, error: null, hasContent: false });
  });

  it('splits the run list on lines and commas, trimming blanks', () => {
    const r = composeBody(draft({ runList: ' nginx ,\n\nwebapp::default\n' }));
    expect(r.body?.parent.run_list).toEqual(['nginx', 'webapp::default']);
    expect(r.hasContent).toBe(true);
  });

  it('a JSON field that does not parse, or is not an object, is an error naming the field, and no body', () => {
    expect(composeBody(draft({ defaults: '{"a":' }))).toMatchObject({ body: null, hasContent: false, error: expect.stringMatching(/^Default attributes: /) });
    expect(composeBody(draft({ cookbooks: '[1]' }))).toMatchObject({ body: null, error: 'Cookbook locks must be a JSON object' });
    expect(composeBody(draft({ overrides: '  ' })).body?.parent.override_attributes).toEqual({});
  });

  it('attributes or cookbooks alone are content; an include alone is content', () => {
    expect(composeBody(draft({ overrides: '{"x": 1}' })).hasContent).toBe(true);
    expect(composeBody(draft({ includes: [{ name: 'base', source: { type: 'server', policy: 'base', group: 'staging' } }] })).hasContent).toBe(true);
  });

  it('from a revision: the parent is the revision, which must be chosen', () => {
    expect(composeBody(draft({ parentMode: 'revision' }))).toEqual({ body: null, error: 'Choose the parent revision', hasContent: false });
    expect(composeBody(draft({ parentMode: 'revision', parentRevision: 'abc', runList: 'ignored' }))).toEqual({ body: { parent: { revision: 'abc' }, includes: [] }, error: null, hasContent: true });
  });
});
