/** Contracts of the console's own endpoints: the board, the diff, the engine previews, this document. */
import { z } from 'zod';
import { defineRoute } from '../contract';
import { policyName, queryFlag } from '@/lib/validation/fields';
import { ORDERING_LIMITS, ZOrderDirectivesInput, ZResolveResourceMapInput } from '@/lib/validation/previews';
import { compareSide } from './policies';

export const boardRoute = defineRoute({
  method: 'GET',
  path: '/board',
  summary: "The stage board's data: stages the caller may view, policies and their revisions in each, and what the caller may do",
  responses: { 200: 'BoardData' },
});

export const diffRoute = defineRoute({
  method: 'GET',
  path: '/diff',
  summary: 'What changes when `to` runs what `from` runs: the lock diff (and, with text=true, both canonical texts)',
  query: z.object({ policy: policyName, from: compareSide, to: compareSide, text: queryFlag.describe('true: the full comparison with both canonical texts') }),
  responses: { 200: '{ policy, from, to, takeovers, missing_artifacts, to_requires_artifacts, …LockDiff }', 404: 'No such policy, stage or revision' },
});

export const orderingPreviewRoute = defineRoute({
  method: 'POST',
  path: '/ordering/preview',
  summary: 'Order directives as the engine would (the ordering simulator). Pure computation: nothing is stored',
  description: "The body is the engine's input (camelCase, as the simulator and the browser engine share it).",
  bodyLimit: ORDERING_LIMITS.bytes,
  body: ZOrderDirectivesInput,
  responses: { 200: 'The ordered policies, warnings and errors' },
});

export const resourceMapPreviewRoute = defineRoute({
  method: 'POST',
  path: '/resource-map/preview',
  summary: 'Resolve which class handles each resource name on a node (the resource-map simulator). Pure computation: nothing is stored',
  description: "The body is the engine's input (camelCase, as the simulator and the browser engine share it).",
  body: ZResolveResourceMapInput,
  responses: { 200: 'The resolved classes, ranked lists with reasons, warnings and refusals' },
});

export const openApiRoute = defineRoute({
  method: 'GET',
  path: '/openapi.json',
  summary: 'This document (public: tools fetch it before they have a token)',
  auth: 'public',
  responses: { 200: 'The OpenAPI 3.1 document' },
});
