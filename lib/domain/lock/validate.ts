import { pointer } from './json';
import type { LockError, PolicyLock, ValidateLockResult } from './types';

/** Policy names and revision ids (Chef Server `oc_erchef` policy validation). */
export const NAME_PATTERN = /^[.A-Za-z0-9_:-]{1,255}$/;
/** Cookbook names and the parts of a run-list item. */
export const COOKBOOK_NAME_PATTERN = /^[.A-Za-z0-9_-]+$/;
/** A fully qualified run-list item, the only form a lock may hold. */
export const RUN_LIST_ITEM_PATTERN = /^recipe\[[.A-Za-z0-9_-]+::[.A-Za-z0-9_-]+\]$/;
/** `x.y` or `x.y.z`, non-negative integers. */
export const VERSION_PATTERN = /^\d+\.\d+(?:\.\d+)?$/;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const describe = (v: unknown): string => {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return `'${v.length > 60 ? v.slice(0, 57) + '…' : v}'`;
  return typeof v === 'object' ? 'an object' : `${typeof v} ${String(v)}`;
};

function checkName(errors: LockError[], field: 'name' | 'revision_id', value: unknown, path: string) {
  if (value === undefined) {
    errors.push({ path, message: `Field '${field}' missing` });
  } else if (typeof value !== 'string') {
    errors.push({ path, message: `Field '${field}' invalid: must be a string, got ${describe(value)}` });
  } else if (value.length === 0 || value.length > 255) {
    errors.push({ path, message: `Field '${field}' invalid: must be 1 to 255 characters, got ${value.length}` });
  } else if (!NAME_PATTERN.test(value)) {
    errors.push({
      path,
      message: `Field '${field}' invalid: ${describe(value)} may contain only letters, digits, '.', '_', ':' and '-'`,
    });
  }
}

function checkRunList(errors: LockError[], field: string, value: unknown, path: string) {
  if (!Array.isArray(value)) {
    errors.push({ path, message: `Field '${field}' is not a valid run list: must be an array, got ${describe(value)}` });
    return;
  }
  for (let i = 0; i < value.length; i++) {
    const item = value[i];
    if (typeof item !== 'string' || !RUN_LIST_ITEM_PATTERN.test(item)) {
      errors.push({
        path: `${path}/${i}`,
        message: `Field '${field}' is not a valid run list: item ${i} ${describe(item)} must be a fully qualified recipe, recipe[COOKBOOK::RECIPE]`,
      });
    }
  }
}

function checkPairs(errors: LockError[], label: string, value: unknown, path: string) {
  if (!Array.isArray(value)) {
    errors.push({ path, message: `${label} must be an array of [name, constraint] pairs` });
    return;
  }
  value.forEach((pair, i) => {
    if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'string' || typeof pair[1] !== 'string') {
      errors.push({ path: `${path}/${i}`, message: `${label} item ${i} must be a [name, constraint] pair of strings` });
    }
  });
}

/**
 * Validates a lock document against every rule of the Policyfile HTTP API
 * (domain.md §1) and reports *all* violations with JSON-pointer paths. The
 * returned lock is the input itself: unknown fields are kept untouched.
 */
export function validateLock(input: unknown): ValidateLockResult {
  const errors: LockError[] = [];
  if (!isObject(input)) {
    return { ok: false, errors: [{ path: '', message: `A lock must be a JSON object, got ${describe(input)}` }] };
  }
  checkName(errors, 'name', input.name, '/name');
  checkName(errors, 'revision_id', input.revision_id, '/revision_id');

  if (input.run_list === undefined) errors.push({ path: '/run_list', message: "Field 'run_list' missing" });
  else checkRunList(errors, 'run_list', input.run_list, '/run_list');

  if (input.named_run_lists !== undefined) {
    if (!isObject(input.named_run_lists)) {
      errors.push({ path: '/named_run_lists', message: `Field 'named_run_lists' must be an object, got ${describe(input.named_run_lists)}` });
    } else {
      // Any name, as Chef Server takes it (erchef validates no named_run_lists) and chef-cli writes it: 'défaut', '🚀', ''.
      for (const [list, items] of Object.entries(input.named_run_lists)) {
        const path = pointer('named_run_lists', list);
        checkRunList(errors, `named_run_lists.${list}`, items, path);
      }
    }
  }

  const cookbooks = input.cookbook_locks;
  if (cookbooks === undefined) {
    errors.push({ path: '/cookbook_locks', message: "Field 'cookbook_locks' missing" });
  } else if (!isObject(cookbooks)) {
    errors.push({ path: '/cookbook_locks', message: `Field 'cookbook_locks' must be an object, got ${describe(cookbooks)}` });
  } else {
    for (const name of Object.keys(cookbooks)) {
      const entry = cookbooks[name];
      const path = pointer('cookbook_locks', name);
      if (!COOKBOOK_NAME_PATTERN.test(name)) {
        errors.push({ path, message: `Cookbook name ${describe(name)} may contain only letters, digits, '.', '_' and '-'` });
      }
      if (!isObject(entry)) {
        errors.push({ path, message: `Cookbook lock '${name}' must be an object, got ${describe(entry)}` });
        continue;
      }
      const { version, identifier, dotted_decimal_identifier: dotted } = entry;
      if (version === undefined) {
        errors.push({ path: path + '/version', message: `Cookbook lock '${name}' is missing 'version'` });
      } else if (typeof version !== 'string' || !VERSION_PATTERN.test(version)) {
        errors.push({ path: path + '/version', message: `Cookbook lock '${name}' has an invalid version ${describe(version)}: must be x.y or x.y.z` });
      }
      if (identifier === undefined) {
        errors.push({ path: path + '/identifier', message: `Cookbook lock '${name}' is missing 'identifier'` });
      } else if (typeof identifier !== 'string' || !NAME_PATTERN.test(identifier)) {
        errors.push({
          path: path + '/identifier',
          message: `Cookbook lock '${name}' has an invalid identifier ${describe(identifier)}: 1 to 255 letters, digits, '.', '_', ':' or '-'`,
        });
      }
      if (dotted !== undefined && (typeof dotted !== 'string' || !VERSION_PATTERN.test(dotted))) {
        errors.push({ path: path + '/dotted_decimal_identifier', message: `Cookbook lock '${name}' has an invalid dotted_decimal_identifier ${describe(dotted)}` });
      }
    }
  }

  for (const field of ['default_attributes', 'override_attributes'] as const) {
    if (input[field] !== undefined && !isObject(input[field])) {
      errors.push({ path: '/' + field, message: `Field '${field}' must be an object, got ${describe(input[field])}` });
    }
  }

  const deps = input.solution_dependencies;
  if (deps !== undefined) {
    if (!isObject(deps)) {
      errors.push({ path: '/solution_dependencies', message: `Field 'solution_dependencies' must be an object, got ${describe(deps)}` });
    } else {
      if (deps.Policyfile !== undefined) checkPairs(errors, "solution_dependencies 'Policyfile'", deps.Policyfile, '/solution_dependencies/Policyfile');
      if (deps.dependencies !== undefined) {
        if (!isObject(deps.dependencies)) {
          errors.push({ path: '/solution_dependencies/dependencies', message: "solution_dependencies 'dependencies' must be an object" });
        } else {
          for (const [key, list] of Object.entries(deps.dependencies)) {
            checkPairs(errors, `Dependencies of '${key}'`, list, pointer('solution_dependencies', 'dependencies', key));
          }
        }
      }
    }
  }

  const includes = input.included_policy_locks;
  if (includes !== undefined) {
    if (!Array.isArray(includes)) {
      errors.push({ path: '/included_policy_locks', message: `Field 'included_policy_locks' must be an array, got ${describe(includes)}` });
    } else {
      includes.forEach((inc, i) => {
        const path = `/included_policy_locks/${i}`;
        if (!isObject(inc)) {
          errors.push({ path, message: `Included policy ${i} must be an object` });
          return;
        }
        if (typeof inc.name !== 'string' || !inc.name) errors.push({ path: path + '/name', message: `Included policy ${i} needs a 'name'` });
        if (typeof inc.revision_id !== 'string' || !NAME_PATTERN.test(inc.revision_id)) {
          errors.push({ path: path + '/revision_id', message: `Included policy ${i} needs a valid 'revision_id'` });
        }
        if (!isObject(inc.source_options)) errors.push({ path: path + '/source_options', message: `Included policy ${i} needs 'source_options' as an object` });
      });
    }
  }

  return errors.length ? { ok: false, errors } : { ok: true, lock: input as PolicyLock };
}
