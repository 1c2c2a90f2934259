/**
 * Every /api/v1 route contract: the registry the OpenAPI document is generated from.
 * A row of the route table (lib/api/routes.ts, handlers in lib/api/handlers/*) binds its handler to one of
 * these with `handle(contract, handler)`; lib/api/openapi-coverage.test.ts fails when a row and a contract differ.
 * A new route: add its contract to the area's file (or a new file listed below).
 */
import type { RouteContract } from '../contract';
import * as admin from './admin';
import * as consoleRoutes from './console';
import * as dependents from './dependents';
import * as guarded from './guarded';
import * as movePreview from './move-preview';
import * as nodes from './nodes';
import * as organizations from './organizations';
import * as policies from './policies';
import * as promotion from './promotion';
import * as promoteCookbookPreview from './promote-cookbook-preview';
import * as rollout from './rollout';
import * as rings from './rings';
import * as schedules from './schedules';
import * as stages from './stages';

const contracts = (mod: Record<string, unknown>) => Object.values(mod).filter((v): v is RouteContract => !!v && typeof v === 'object' && 'method' in v && 'path' in v && 'responses' in v);

export const API_CONTRACTS: RouteContract[] = [admin, consoleRoutes, dependents, guarded, movePreview, nodes, organizations, policies, promotion, promoteCookbookPreview, rollout, rings, schedules, stages].flatMap(contracts);
