/** One entry of `cookbook_locks`. Fields the console does not interpret are kept as they are. */
export interface CookbookLockEntry {
  version: string;
  identifier: string;
  dotted_decimal_identifier?: string;
  source?: string;
  source_options?: Record<string, unknown>;
  scm_info?: Record<string, unknown> | null;
  cache_key?: string | null;
  origin?: string;
  /** Console extension: resource names this cookbook defines (resource-map warnings). */
  provides?: string[];
  [field: string]: unknown;
}

/** `solution_dependencies`: the Policyfile's constraints and each locked cookbook's dependencies. */
export interface SolutionDependencies {
  Policyfile?: [string, string][];
  dependencies?: Record<string, [string, string][]>;
  [field: string]: unknown;
}

/** A direct include recorded in a merged lock. */
export interface IncludedPolicyLockRef {
  name: string;
  revision_id: string;
  source_options: Record<string, unknown>;
  [field: string]: unknown;
}

/** A Policyfile lock document as the server understands it; unknown fields are kept. */
export interface PolicyLock {
  name: string;
  revision_id: string;
  run_list: string[];
  named_run_lists?: Record<string, string[]>;
  cookbook_locks: Record<string, CookbookLockEntry>;
  default_attributes?: Record<string, unknown>;
  override_attributes?: Record<string, unknown>;
  solution_dependencies?: SolutionDependencies;
  included_policy_locks?: IncludedPolicyLockRef[];
  [field: string]: unknown;
}

/** A violation found in a document: `path` is a JSON pointer (RFC 6901). */
export interface LockError {
  path: string;
  message: string;
}

export type ValidateLockResult = { ok: true; lock: PolicyLock } | { ok: false; errors: LockError[] };
