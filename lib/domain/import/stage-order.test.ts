import { describe, expect, it } from 'vitest';
import { orderImportedStages, stageRank } from './stage-order';

describe('orderImportedStages', () => {
  it('puts dev, qa, staging, production in promotion order, whatever the input order', () => {
    expect(orderImportedStages(['production', 'qa', 'dev', 'staging'])).toEqual(['dev', 'qa', 'staging', 'production']);
    expect(orderImportedStages(['prod', 'stage', 'development'])).toEqual(['development', 'stage', 'prod']);
  });

  it('appends names it cannot place, in name order, after the recognised ones', () => {
    expect(orderImportedStages(['zeta', 'prod-eu', 'alpha', 'dev'])).toEqual(['dev', 'prod-eu', 'alpha', 'zeta']);
  });

  it('recognises a name only by its first word', () => {
    expect(stageRank('production-2')).toBe(3);
    expect(stageRank('developers-only')).toBeNull();
    expect(stageRank('qa')).toBe(1);
  });
});
