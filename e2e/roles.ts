import { DEMO_PASSWORD, DEMO_USERS } from '../lib/seed/demo-data';

export { DEMO_PASSWORD };

/** The demo seed's users (lib/seed), by their Chef name: the e2e suite signs in as the seed made them. */
const seeded = (chefName: string): string => {
  const user = DEMO_USERS.find((u) => u.chefName === chefName);
  if (!user) throw new Error(`the demo seed has no user '${chefName}'`);
  return user.email;
};

export const ROLES = {
  admin: seeded('admin'),
  release: seeded('release'),
  dev: seeded('dev'),
  viewer: seeded('viewer'),
  /** Approver on staging and production (issue 15's demo data). */
  lead: seeded('lead'),
} as const;

export type Role = keyof typeof ROLES;

export const stateFile = (role: Role) => `e2e/.auth/${role}.json`;
