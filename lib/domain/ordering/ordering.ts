import { compareNamePairs, javaCaseInsensitiveCompare } from './java-order';

export interface TechniqueInput {
  name: string;
  version?: string;
  multiInstance: boolean;
  /** merged | separated | separated-with-parameters, case-insensitive; anything else is merged. */
  generationMode?: string;
}
export interface DirectiveInput {
  id: string;
  name: string;
  technique: string;
  techniqueVersion?: string;
  /** 0 (highest) to 10 (lowest); default 5. */
  priority?: number;
  values?: Record<string, string[]>;
}
export interface RuleInput {
  id: string;
  name: string;
  directiveIds: string[];
}
export interface OrderDirectivesInput {
  techniques: TechniqueInput[];
  directives: DirectiveInput[];
  rules: RuleInput[];
}

export interface SkippedDirective {
  rule: string;
  directive: string;
  reason: string;
}
export interface OrderedPolicy {
  technique: string;
  rule: string;
  directive: string;
  /** Directive names whose values are merged, in the order the agent reads them (the last definition wins). */
  valueOrder: string[];
  values?: Record<string, string[]>;
  skipped: SkippedDirective[];
  /** Why it is where it is: the (rule, directive) names it sorts by. */
  sortKey: string[];
  mode: 'unique' | 'merged' | 'separated';
  /** The effective priority (the winner's, or the lowest number merged). */
  priority: number;
}
export interface OrderingWarning {
  kind: 'unstable' | 'tie';
  technique?: string;
  message: string;
}
export interface OrderingError {
  kind: string;
  technique?: string;
  message: string;
}
export interface OrderDirectivesResult {
  policies: OrderedPolicy[];
  warnings: OrderingWarning[];
  errors: OrderingError[];
}

export const DEFAULT_PRIORITY = 5;

export function generationModeOf(t: TechniqueInput): 'merged' | 'separated' {
  const m = (t.generationMode ?? '').toLowerCase();
  return m === 'separated' || m === 'separated-with-parameters' ? 'separated' : 'merged';
}

interface Pair {
  rule: RuleInput;
  directive: DirectiveInput;
  priority: number;
}

const pairKey = (p: Pair) => [p.rule.name, p.directive.name];
/** Name order, then a deterministic tie-break on exact text and ids (Rudder leaves exact ties undefined). */
function comparePairs(a: Pair, b: Pair): number {
  return compareNamePairs(pairKey(a), pairKey(b)) || exact(a.rule.name, b.rule.name) || exact(a.directive.name, b.directive.name) || exact(a.rule.id, b.rule.id) || exact(a.directive.id, b.directive.id);
}
const exact = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const byPriorityThenName = (a: Pair, b: Pair) => a.priority - b.priority || comparePairs(a, b);

/**
 * Rudder's directive ordering for one node (ordering.md A): which policies the
 * node gets, in which order, with merged values and the reasons. Pure and
 * deterministic: the input order never matters except to break exact
 * case-insensitive name ties, which are flagged.
 */
export function orderDirectives(input: OrderDirectivesInput): OrderDirectivesResult {
  const warnings: OrderingWarning[] = [];
  const errors: OrderingError[] = [];
  const techniques = new Map(input.techniques.map((t) => [t.name, t]));
  const directives = new Map(input.directives.map((d) => [d.id, d]));

  // 1. (rule, directive) pairs, duplicates dropped.
  const seen = new Set<string>();
  const pairs: Pair[] = [];
  for (const rule of input.rules) {
    for (const id of rule.directiveIds) {
      const directive = directives.get(id);
      if (!directive) {
        errors.push({ kind: 'missing_directive', message: `Rule '${rule.name}' names directive '${id}', which does not exist` });
        continue;
      }
      if (!techniques.has(directive.technique)) {
        errors.push({ kind: 'unknown_technique', technique: directive.technique, message: `Directive '${directive.name}' uses technique '${directive.technique}', which is not defined` });
        continue;
      }
      const key = `${rule.id}\u0000${id}`;
      if (seen.has(key)) continue;
      seen.add(key);
      pairs.push({ rule, directive, priority: directive.priority ?? DEFAULT_PRIORITY });
    }
  }

  const byTechnique = new Map<string, Pair[]>();
  for (const p of pairs) {
    const list = byTechnique.get(p.directive.technique) ?? [];
    list.push(p);
    byTechnique.set(p.directive.technique, list);
  }

  const policies: OrderedPolicy[] = [];
  for (const [name, list] of [...byTechnique].sort(([a], [b]) => exact(a, b))) {
    const technique = techniques.get(name)!;
    const sorted = [...list].sort(comparePairs);
    if (!technique.multiInstance) {
      // 2. Unique technique: the lowest priority number wins; ties by name order.
      const ranked = [...list].sort(byPriorityThenName);
      const winner = ranked[0];
      const rivals = new Set(ranked.filter((p) => p.priority === winner.priority).map((p) => p.directive.id));
      if (rivals.size > 1) {
        warnings.push({
          kind: 'unstable',
          technique: name,
          message: `Technique '${name}' is unique and ${rivals.size} different directives share the winning priority ${winner.priority}; '${winner.directive.name}' wins only by name order. Give one of them a distinct priority.`,
        });
      }
      policies.push({
        technique: name,
        rule: winner.rule.name,
        directive: winner.directive.name,
        valueOrder: [winner.directive.name],
        ...(winner.directive.values ? { values: winner.directive.values } : {}),
        skipped: ranked.slice(1).map((p) => ({
          rule: p.rule.name,
          directive: p.directive.name,
          reason:
            p.directive.id === winner.directive.id
              ? `same directive, kept once under rule '${winner.rule.name}'`
              : `overridden by '${winner.directive.name}' (priority ${winner.priority} ${p.priority === winner.priority ? 'ties; it wins by name order' : `beats ${p.priority}`})`,
        })),
        sortKey: pairKey(winner),
        mode: 'unique',
        priority: winner.priority,
      });
    } else if (generationModeOf(technique) === 'separated') {
      // 3. Separated: one policy per directive, kept once at its name-smallest rule.
      const byDirective = new Map<string, Pair[]>();
      for (const p of sorted) byDirective.set(p.directive.id, [...(byDirective.get(p.directive.id) ?? []), p]);
      for (const [, dl] of byDirective) {
        const first = dl[0];
        policies.push({
          technique: name,
          rule: first.rule.name,
          directive: first.directive.name,
          valueOrder: [first.directive.name],
          ...(first.directive.values ? { values: first.directive.values } : {}),
          skipped: dl.slice(1).map((p) => ({ rule: p.rule.name, directive: p.directive.name, reason: `same directive, kept once under rule '${first.rule.name}'` })),
          sortKey: pairKey(first),
          mode: 'separated',
          priority: first.priority,
        });
      }
    } else {
      // 4. Merged: one policy, values in (priority, name) order, placed by the name-smallest pair.
      const versions = new Set(list.map((p) => p.directive.techniqueVersion ?? technique.version ?? ''));
      if (versions.size > 1) {
        errors.push({
          kind: 'version_mismatch',
          technique: name,
          message: `Directives of merged technique '${name}' use different technique versions (${[...versions].map((v) => v || 'unspecified').join(', ')}); Rudder cannot merge them for this node`,
        });
        continue;
      }
      const first = sorted[0];
      const skipped: SkippedDirective[] = [];
      const merged: Pair[] = [];
      const used = new Set<string>();
      for (const p of [...list].sort(byPriorityThenName)) {
        if (used.has(p.directive.id)) {
          skipped.push({ rule: p.rule.name, directive: p.directive.name, reason: 'same directive reached through another rule, merged once' });
          continue;
        }
        used.add(p.directive.id);
        merged.push(p);
      }
      const values: Record<string, string[]> = {};
      let hasValues = false;
      for (const p of merged) {
        for (const [k, v] of Object.entries(p.directive.values ?? {})) {
          hasValues = true;
          (values[k] ??= []).push(...v);
        }
      }
      policies.push({
        technique: name,
        rule: first.rule.name,
        directive: first.directive.name,
        valueOrder: merged.map((p) => p.directive.name),
        ...(hasValues ? { values } : {}),
        skipped,
        sortKey: pairKey(first),
        mode: 'merged',
        priority: merged[0].priority,
      });
    }
  }

  // 5. Everything in name order; exact case-insensitive ties broken deterministically and flagged.
  policies.sort((a, b) => compareNamePairs(a.sortKey, b.sortKey) || exact(a.sortKey[0], b.sortKey[0]) || exact(a.sortKey[1], b.sortKey[1]) || exact(a.technique, b.technique));
  for (let i = 1; i < policies.length; i++) {
    if (compareNamePairs(policies[i - 1].sortKey, policies[i].sortKey) === 0) {
      warnings.push({
        kind: 'tie',
        technique: policies[i].technique,
        message: `'${policies[i - 1].sortKey.join(' / ')}' (${policies[i - 1].technique}) and '${policies[i].sortKey.join(' / ')}' (${policies[i].technique}) have the same name ignoring case; Rudder's order between them is not defined. Rename one.`,
      });
    }
  }
  return { policies, warnings, errors };
}

/** Names that will sort surprisingly: numeric prefixes of different widths ("5." after "40."). */
export function numericPrefixAdvice(names: string[]): string[] {
  const prefixed = names.map((n) => ({ n, m: /^(\d+)/.exec(n) })).filter((x) => x.m);
  const widths = new Set(prefixed.map((x) => x.m![1].length));
  if (widths.size < 2) return [];
  const width = Math.max(...widths);
  return prefixed
    .filter((x) => x.m![1].length < width)
    .sort((a, b) => javaCaseInsensitiveCompare(a.n, b.n))
    .map((x) => `'${x.n}' sorts as text, not as a number: write it '${x.m![1].padStart(width, '0')}${x.n.slice(x.m![1].length)}' to keep numeric order`);
}
