/**
 * The Chef surface as data: every route the organization API serves, one
 * resource per file under resources/ (as chef-zero has one endpoint per file
 * and erchef one module per resource). A new resource adds its file and one
 * line here. Paths are below /organizations/<org>/, except `users/…`, which is
 * also served at the server level, and `organizations…`, served there only.
 */
import { everyOrganization, serverLevelOnly, type ChefRoute } from './context';
import { clientRoutes } from './resources/clients';
import { cookbookArtifactRoutes } from './resources/cookbook-artifacts';
import { dataBagRoutes } from './resources/data-bags';
import { dataCollectorRoutes } from './resources/data-collector';
import { clientKeyRoutes, userKeyRoutes } from './resources/keys';
import { nodeRoutes } from './resources/nodes';
import { environmentRoutes } from './resources/environments';
import { policyRoutes } from './resources/policies';
import { policyGroupRoutes } from './resources/policy-groups';
import { sandboxRoutes } from './resources/sandboxes';
import { searchRoutes } from './resources/search';
import { toleratedRoutes } from './resources/tolerated';
import { userRoutes } from './resources/users';
import { serverApiVersionRoutes } from './resources/server-api-version';
import { licenseRoutes } from './resources/license';
import { groupRoutes } from './resources/groups';
import { organizationRoutes } from './resources/organizations';
import { orgAssociationRequestRoutes, userAssociationRequestRoutes } from './resources/association-requests';

export const chefRoutes: readonly ChefRoute[] = [
  ...policyRoutes,
  ...policyGroupRoutes,
  ...nodeRoutes,
  ...environmentRoutes,
  // Issue 23: identities are served under every organization; every other resource under the home one only.
  ...everyOrganization(clientRoutes),
  ...everyOrganization(clientKeyRoutes),
  ...everyOrganization(userKeyRoutes),
  ...everyOrganization(userRoutes),
  ...sandboxRoutes,
  ...cookbookArtifactRoutes,
  ...dataBagRoutes,
  ...searchRoutes,
  ...dataCollectorRoutes,
  ...toleratedRoutes,
  ...serverApiVersionRoutes,
  ...licenseRoutes,
  ...everyOrganization(groupRoutes),
  ...serverLevelOnly(organizationRoutes),
  ...everyOrganization(orgAssociationRequestRoutes), ...userAssociationRequestRoutes,
];

/**
 * Every route, as `METHOD /path` with `:param` segments. docs/chef-compatibility.md
 * lists them; lib/chef/routes-doc.test.ts fails when one is missing.
 */
export function chefRouteTable(): { method: string; path: string }[] {
  return chefRoutes.map((r) => ({ method: r.method, path: '/' + r.path.split('/').filter(Boolean).join('/') }));
}
