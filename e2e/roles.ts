export const DEMO_PASSWORD = 'demo-password';

export const ROLES = {
  admin: 'admin@example.com',
  release: 'release@example.com',
  dev: 'dev@example.com',
  viewer: 'viewer@example.com',
  /** Approver on staging and production (issue 15's demo data). */
  lead: 'lead@example.com',
} as const;

export type Role = keyof typeof ROLES;

export const stateFile = (role: Role) => `e2e/.auth/${role}.json`;
