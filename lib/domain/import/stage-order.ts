/**
 * Issue 27: the order of imported policy groups as stages. Chef Server keeps
 * no order between policy groups; their names usually say it (dev → qa →
 * staging → production). Known names come first in that order, the rest
 * after them in name order; an administrator can reorder them afterwards.
 * Pure.
 */
const RANKS: readonly (readonly [RegExp, number])[] = [
  [/^(dev|devel|develop|development|sandbox|local)(\b|[-_.\d]|$)/i, 0],
  [/^(test|testing|qa|ci|int|integration)(\b|[-_.\d]|$)/i, 1],
  [/^(stage|staging|stg|preprod|pre-prod|uat)(\b|[-_.\d]|$)/i, 2],
  [/^(prod|production|prd|live)(\b|[-_.\d]|$)/i, 3],
];

/** The rank a group's name suggests (0 dev … 3 production), or null when it suggests none. */
export function stageRank(name: string): number | null {
  for (const [re, rank] of RANKS) if (re.test(name)) return rank;
  return null;
}

/** Group names in the order to create them as stages: recognised ones by rank, then the others by name. */
export function orderImportedStages(names: readonly string[]): string[] {
  const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const known = names.filter((n) => stageRank(n) !== null).sort((a, b) => stageRank(a)! - stageRank(b)! || byName(a, b));
  const other = names.filter((n) => stageRank(n) === null).sort(byName);
  return [...known, ...other];
}
