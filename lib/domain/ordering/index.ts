export { orderDirectives, numericPrefixAdvice, generationModeOf, DEFAULT_PRIORITY } from './ordering';
export type { OrderDirectivesInput, OrderDirectivesResult, OrderedPolicy, OrderingWarning, OrderingError, SkippedDirective, TechniqueInput, DirectiveInput, RuleInput } from './ordering';
export { javaCaseInsensitiveCompare, compareNamePairs } from './java-order';
