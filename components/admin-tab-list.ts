import type { AdminArea } from '@/lib/services/organizations';

/** The Admin pages, in the tabs' order: each area's page and label. */
export const ADMIN_TABS: readonly (readonly [AdminArea, string, string])[] = [
  ['permissions', '/admin', 'Permissions'],
  ['stages', '/admin/stages', 'Stages'],
  ['users', '/admin/users', 'Users'],
  ['organizations', '/admin/organizations', 'Organizations'],
  ['teams', '/admin/teams', 'Teams'],
  ['tokens', '/admin/tokens', 'API tokens'],
  ['clients', '/admin/clients', 'Chef clients'],
  ['git', '/admin/git', 'Git repositories'],
  ['webhooks', '/admin/webhooks', 'Webhooks'],
  ['import', '/admin/import', 'Import'],
];

/** Where the main navigation's Admin tab leads: the first Admin page the user may use besides their own tokens (null: none, no Admin tab). */
export function adminHref(areas: readonly AdminArea[]): string | null {
  return ADMIN_TABS.find(([area]) => area !== 'tokens' && areas.includes(area))?.[1] ?? null;
}
