/** The organization's settings as the API and the admin screen show them (issue 22/23). */
export interface OrgSettingsDto {
  /** When on, a Chef client reads only its own stage's nodes, data bags and search results (its stage: its node's policy_group). */
  stage_isolation: boolean;
  /** When the settings last changed (null: never, every default). */
  updated_at: string | null;
  updated_by: string | null;
}
