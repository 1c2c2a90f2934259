/**
 * One contract per /api/v1 route and method: the path, the snake_case query
 * and body schemas (zod, transformed into the service input), and the
 * documented answers. `apiRoute(contract, handler)` parses with it, so error
 * pointers name the fields the client sent; `openApiDocument()` is generated
 * from the same objects (lib/api/contracts/index.ts lists them all).
 *
 * Pure data and zod: no server imports, so the OpenAPI generator and the
 * coverage test load it anywhere.
 */
import type { z } from 'zod';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * How the body is read before the schema sees it:
 * - `json`: JSON.parse (bounded depth and size);
 * - `lossless`: number lexemes and key order kept (input that ends up in a lock);
 * - `text`: the raw text, validated by the service (lock uploads: the stored bytes are the sent bytes).
 */
export type BodyKind = 'json' | 'lossless' | 'text';

/** A documented answer: a description, and a JSON Schema (or a zod schema, converted) of its body. */
export interface ResponseSpec {
  description: string;
  schema?: object | z.ZodType;
  contentType?: string;
}

export interface RouteContract<Q extends z.ZodType | undefined = z.ZodType | undefined, B extends z.ZodType | undefined = z.ZodType | undefined> {
  method: HttpMethod;
  /** The path below /api/v1, with `{param}` for each `[param]` folder of the route file: `/policy_groups/{group}/promote`. */
  path: string;
  summary: string;
  description?: string;
  /** `public`: no credentials needed (the OpenAPI document). Default: authenticated (bearer token, Chef signature or session). */
  auth?: 'required' | 'public';
  /** A description of each path parameter (all are Chef names unless `paramSchemas` says otherwise). */
  params?: Record<string, string>;
  /** The query string as an object of strings, snake_case, transformed into what the handler uses. */
  query?: Q;
  /** The body, snake_case, transformed into the service input. Absent with `bodyKind: 'text'`. */
  body?: B;
  bodyKind?: BodyKind;
  /** The byte limit of the body (default MAX_BODY_BYTES). */
  bodyLimit?: number;
  /** What the OpenAPI document shows for a `text` body (a JSON Schema, e.g. a `$ref` to PolicyLock). */
  bodyDoc?: { description?: string; schema: object };
  responses: Record<number, string | ResponseSpec>;
}

/** Declares a route contract (an identity function that keeps the schema types for the handler). */
export function defineRoute<Q extends z.ZodType | undefined = undefined, B extends z.ZodType | undefined = undefined>(contract: RouteContract<Q, B>): RouteContract<Q, B> {
  return contract;
}

export type QueryOf<C> = C extends RouteContract<infer Q, z.ZodType | undefined> ? (Q extends z.ZodType ? z.output<Q> : Record<string, never>) : never;
export type BodyOf<C> = C extends RouteContract<z.ZodType | undefined, infer B> ? (B extends z.ZodType ? z.output<B> : undefined) : never;

/** The schemas the OpenAPI document refers to by name (`#/components/schemas/...`). */
export const ref = (name: 'PolicyLock' | 'Node' | 'Error' | 'Stage') => ({ $ref: `#/components/schemas/${name}` });
