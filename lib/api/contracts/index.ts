/**
 * Every /api/v1 route contract, the registry the OpenAPI document is generated from.
 * A route file binds its handler to one of these with `apiRoute(contract, handler)`;
 * test/openapi-coverage.test.ts fails when a route file exports a method that has no entry here.
 * New routes: add a contract in the area's file (or a new file) and list it below.
 */
import type { RouteContract } from '../contract';
import * as promotion from './promotion';
import * as promoteCookbookPreview from './promote-cookbook-preview';

export const API_CONTRACTS: RouteContract[] = [...Object.values(promotion), ...Object.values(promoteCookbookPreview)];
