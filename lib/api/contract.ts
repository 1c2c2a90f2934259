/**
 * One contract per /api/v1 route and method: the path, the snake_case query
 * and body schemas (zod, transformed into the service input), and the
 * documented answers. `handle(contract, handler)` (lib/api/envelope.ts) parses with it, so error
 * pointers name the fields the client sent; `openApiDocument()` is generated
 * from the same objects (lib/api/contracts/index.ts lists them all). A write's
 * body is derived from its service's input schema (`wireBody`, `pathInput`
 * below), so its rules are written once and parsed once.
 *
 * Pure data and zod: no server imports, so the OpenAPI generator and the
 * coverage test load it anywhere.
 */
import { z } from 'zod';

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

export interface RouteContract<Q extends z.ZodType | undefined = z.ZodType | undefined, B extends z.ZodType | undefined = z.ZodType | undefined, P extends PathInput | undefined = PathInput | undefined> {
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
  /** Service input fields taken from the path, checked by the service schema's field rules (`pathInput(ZX, { stage: 'group' })`). */
  pathInput?: P;
  /** The byte limit of the body (default MAX_BODY_BYTES). */
  bodyLimit?: number;
  /** What the OpenAPI document shows for a `text` body (a JSON Schema, e.g. a `$ref` to PolicyLock). */
  bodyDoc?: { description?: string; schema: object };
  responses: Record<number, string | ResponseSpec>;
}

/** Declares a route contract (an identity function that keeps the schema types for the handler). */
export function defineRoute<Q extends z.ZodType | undefined = undefined, B extends z.ZodType | undefined = undefined, P extends PathInput | undefined = undefined>(contract: RouteContract<Q, B, P>): RouteContract<Q, B, P> {
  return contract;
}

export type QueryOf<C> = C extends RouteContract<infer Q, z.ZodType | undefined, PathInput | undefined> ? (Q extends z.ZodType ? z.output<Q> : Record<string, never>) : never;
export type BodyOf<C> = C extends RouteContract<z.ZodType | undefined, infer B, PathInput | undefined> ? (B extends z.ZodType ? z.output<B> : undefined) : never;
export type PathInputOf<C> = C extends RouteContract<z.ZodType | undefined, z.ZodType | undefined, infer P> ? (P extends PathInput<infer T> ? T : Record<string, never>) : never;

/** The schemas the OpenAPI document refers to by name (`#/components/schemas/...`). */
export const ref = (name: 'PolicyLock' | 'Node' | 'Error' | 'Stage') => ({ $ref: `#/components/schemas/${name}` });

// ------------------------------------------------------------------ one schema per input

/** `expectedRevisionId` → `expected_revision_id`. */
export type SnakeCase<S extends string> = S extends `${infer H}${infer T}` ? `${H extends Lowercase<H> ? H : `_${Lowercase<H>}`}${SnakeCase<T>}` : S;
/** A camelCase field name as the client sends it (snake_case). */
export const snake = (k: string) => k.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase());

/** A service input schema's fields: its object shape (`z.object(...)`, no object-level refinements). */
type ObjectSchema = z.ZodObject<z.ZodRawShape>;

/**
 * The request body of a route, derived from the service's input schema (the one definition of the
 * input's rules): the same field schemas under snake_case keys, `.strict()`, transformed into the
 * service's camelCase object. Error pointers name the fields as the client sent them by construction.
 * `omit`: fields the body does not carry (the request id, the path parameters: see `pathInput`).
 * `ignored`: wire-only fields accepted (checked by their schema) and dropped, e.g. the `name` knife repeats from the path.
 * `alias`: service fields the wire does not carry separately: `{ freezeOverrideReason: 'overrideReason' }` gives the
 * service's freeze override the value of `override_reason` (one written reason overrides both).
 */
export function wireBody<S extends ObjectSchema, K extends keyof S['shape'] & string = never, A extends keyof S['shape'] & string = never>(
  schema: S,
  opts: { omit?: readonly K[]; ignored?: Record<string, z.ZodType>; alias?: { [F in A]: Exclude<keyof S['shape'] & string, A> } } = {},
) {
  const alias = Object.entries((opts.alias ?? {}) as Record<string, string>);
  const omit = new Set<string>([...(opts.omit ?? []), ...alias.map(([f]) => f)]);
  const names = new Map<string, string>();
  const shape: Record<string, z.ZodType> = {};
  for (const [k, v] of Object.entries(schema.shape)) {
    if (omit.has(k)) continue;
    names.set(snake(k), k);
    shape[snake(k)] = v as z.ZodType;
  }
  const ignored = new Set(Object.keys(opts.ignored ?? {}));
  for (const [k, v] of Object.entries(opts.ignored ?? {})) shape[k] = v;
  return z
    .object(shape)
    .strict()
    .transform((b) => {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(b)) if (!ignored.has(k) || names.has(k)) out[names.get(k) ?? k] = v;
      for (const [field, from] of alias) if (out[from] !== undefined) out[field] = out[from];
      return out as Omit<z.output<S>, K>;
    }) as unknown as z.ZodType<Omit<z.output<S>, K>, { [P in Exclude<keyof z.input<S> & string, K | A> as SnakeCase<P>]: z.input<S>[P] }>;
}

/**
 * Service input fields that come from the path (`{ stage: 'group' }`: the `stage` field is the
 * `{group}` parameter), checked by the service schema's own field rules after the body, so a
 * malformed name answers 400 at `/stage` as the service always did.
 */
export interface PathInput<T = Record<string, unknown>> {
  fields: { field: string; param: string; schema: z.ZodType }[];
  /** Type only: the parsed fields. */
  readonly _output?: T;
}

export function pathInput<S extends ObjectSchema, M extends Partial<Record<keyof S['shape'] & string, string>>>(schema: S, map: M): PathInput<Pick<z.output<S>, keyof M & keyof z.output<S>>> {
  return { fields: Object.entries(map).map(([field, param]) => ({ field, param: param as string, schema: schema.shape[field] as z.ZodType })) };
}
