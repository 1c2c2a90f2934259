export { resolveResourceMap } from './resource-map';
export type { ResolveResourceMapInput, ResolveResourceMapResult, Registration, RegistrationFilters, NodeFacts, RankedEntry, ResourceMapMode } from './resource-map';
export { resourceTakeovers, type ResourceTakeover } from './takeovers';
