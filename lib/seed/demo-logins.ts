/** Issue 43: the demo users as the sign-in page introduces them to a newcomer (only while the demo is seeded: lib/services/organizations/settings-queries.ts demoLogins). */
import { DEMO_PROTECTION, DEMO_STAGES, DEMO_USERS } from './demo-data';

const list = (xs: string[]) => (xs.length === DEMO_STAGES.length ? 'every stage' : xs.join(', '));

/** What a demo user can do, in a few words ("promotes into staging, production; views dev, qa"). */
export function describeDemoUser(email: string): string | null {
  const u = DEMO_USERS.find((x) => x.email === email);
  if (!u) return null;
  if (u.isAdmin) return 'everything (administrator)';
  const grants = u.grants as Record<string, string | undefined>;
  const at = (level: string) => DEMO_STAGES.map((s) => s.name as string).filter((s) => grants[s] === level);
  const approves = Object.entries(DEMO_PROTECTION).filter(([, p]) => p.approvers.includes(email)).map(([stage]) => stage);
  const parts = [
    approves.length ? `approves changes into ${approves.join(', ')}` : null,
    at('manage').length ? `manages ${list(at('manage'))}` : null,
    at('promote').length ? `promotes into ${list(at('promote'))}` : null,
    at('view').length ? `views ${list(at('view'))}` : null,
    u.teams.length ? `team ${u.teams.join(', ')}` : null,
  ].filter(Boolean);
  return parts.join('; ');
}

/** The demo users in the seed's order (admin first). */
export const demoUserOrder = (email: string) => DEMO_USERS.findIndex((u) => u.email === email);
