/**
 * The lock rules of `validateLock` (lib/domain/lock/validate.ts) written as a
 * zod 4 schema: the fair alternative implementation the benchmark compares
 * against (same checks, every violation collected, unknown fields kept).
 */
import { z } from 'zod';
import { COOKBOOK_NAME_PATTERN, NAME_PATTERN, RUN_LIST_ITEM_PATTERN, VERSION_PATTERN } from '@/lib/domain';

const name = z.string().regex(NAME_PATTERN);
const runList = z.array(z.string().regex(RUN_LIST_ITEM_PATTERN));
const pairs = z.array(z.tuple([z.string(), z.string()]));
const attrs = z.record(z.string(), z.unknown());

export const ZLock = z.looseObject({
  name,
  revision_id: name,
  run_list: runList,
  named_run_lists: z.record(z.string().regex(COOKBOOK_NAME_PATTERN), runList).optional(),
  cookbook_locks: z.record(
    z.string().regex(COOKBOOK_NAME_PATTERN),
    z.looseObject({ version: z.string().regex(VERSION_PATTERN), identifier: name, dotted_decimal_identifier: z.string().regex(VERSION_PATTERN).optional() }),
  ),
  default_attributes: attrs.optional(),
  override_attributes: attrs.optional(),
  solution_dependencies: z.looseObject({ Policyfile: pairs.optional(), dependencies: z.record(z.string(), pairs).optional() }).optional(),
  included_policy_locks: z.array(z.looseObject({ name: z.string().min(1), revision_id: name, source_options: z.record(z.string(), z.unknown()) })).optional(),
});
