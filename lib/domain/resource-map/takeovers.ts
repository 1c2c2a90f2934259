import type { LockDiff } from '../diff/diff';
import type { PolicyLock } from '../lock/types';
import { resolveResourceMap, type Registration, type ResourceMapMode } from './resource-map';

export interface ResourceTakeover {
  cookbook: string;
  resource: string;
  /** The core classes that hold the name. */
  core: string[];
  /** What each mode does with the cookbook's registration. */
  modes: Record<ResourceMapMode, 'refused' | 'mapped with a deprecation warning' | 'mapped with a warning' | 'mapped (override allowed)'>;
}

/**
 * Cookbooks that a change brings in (added, upgraded, downgraded or changed)
 * whose lock entry declares `provides` names that core already registers:
 * each would take over a core resource, and each mode treats that differently.
 */
export function resourceTakeovers(diff: LockDiff, incoming: PolicyLock, core: Registration[], chefVersion: string): ResourceTakeover[] {
  const coreByKey = new Map<string, string[]>();
  for (const r of core) if (r.source === 'core') coreByKey.set(r.key, [...(coreByKey.get(r.key) ?? []), r.className]);
  const out: ResourceTakeover[] = [];
  for (const change of diff.cookbooks) {
    if (change.kind === 'removed') continue;
    const provides = incoming.cookbook_locks[change.name]?.provides;
    if (!Array.isArray(provides)) continue;
    for (const resource of provides) {
      if (typeof resource !== 'string' || !coreByKey.has(resource)) continue;
      const registrations: Registration[] = [...core.filter((r) => r.key === resource), { key: resource, className: `${change.name}::${resource}`, source: 'cookbook' }];
      const modes = {} as ResourceTakeover['modes'];
      for (const mode of ['rfc', 'chef14', 'chef15'] as const) {
        const r = resolveResourceMap({ mode, chefVersion, node: { platform: '', platform_family: '', platform_version: '0', os: '' }, registrations });
        modes[mode] = r.rejected.length ? 'refused' : r.warnings.some((w) => w.kind === 'deprecation') ? 'mapped with a deprecation warning' : r.warnings.length ? 'mapped with a warning' : 'mapped (override allowed)';
      }
      out.push({ cookbook: change.name, resource, core: coreByKey.get(resource)!, modes });
    }
  }
  return out;
}
