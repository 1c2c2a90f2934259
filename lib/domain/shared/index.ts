/** Primitives the engines share: one home each (issue 10). */
export { compareCodePoints, sortCodePoints } from './compare';
export { canonicalJson, stableJson, formatG15, TextSink, writeCanonical } from './canonical';
export { jsonEqual } from './json-equal';
export { JsonNumber } from './json-number';
export { bumpLevel, compareVersions, parseConstraint, parseVersion, satisfies, type ParsedConstraint } from './version';
