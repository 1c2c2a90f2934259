import { z } from 'zod';

/** The one schema of a change to the organization's settings: the API's body and the admin form's input. */
export const ZOrgSettingsInput = z
  .object({
    stage_isolation: z.boolean({ error: 'must be true or false' }).describe("Limit each Chef client to its own stage (its node's policy_group): nodes, data bags and search results"),
  })
  .strict();
export type OrgSettingsInput = z.output<typeof ZOrgSettingsInput>;
