import { DEMO_PASSWORD, DEMO_USERS } from '../lib/seed/demo-data';
import { workerSlot } from './servers';

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

/** A role's signed-in storage state on worker slot `slot`'s server (this worker's by default; e2e/global-setup.ts signs in on each). */
export const stateFile = (role: Role, slot: number = workerSlot()) => `e2e/.auth/${role}-${slot}.json`;
