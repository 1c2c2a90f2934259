/**
 * Issue 45: keeping a sign-in through the provider honest after it happened. A person the provider vouched for is
 * trusted for OIDC_REFRESH_SECONDS (default 600: ten minutes) after the provider last confirmed them; the first
 * request after that asks the provider again with the refresh token kept (encrypted) from the sign-in, and syncs their
 * groups as a sign-in does. The same rule holds for their browser session and for their API tokens:
 *
 * - the provider answers with groups: memberships follow them (audited), the request goes on;
 * - the provider refuses the refresh token (`invalid_grant`: the person was removed there, or their grant ended): the
 *   identity is marked removed, their group memberships end, an account made just in time is deactivated (its API
 *   tokens and Chef keys stop too) — the request is refused;
 * - the person is in no mapped group any more: memberships end, the request is refused;
 * - the provider cannot be reached, or gave no refresh token to ask with: the request is refused (fails closed)
 *   until the provider answers or the person signs in again.
 *
 * One refresh per person at a time across instances (lib/services/users/sso.ts claimRefresh): the others wait for it to
 * land, and meanwhile honour the last confirmation for REFRESH_GRACE_MS more.
 */
import { custom, errors, Issuer, type BaseClient } from 'openid-client';
import { processBox } from '@/lib/process-state';
import { readGroupsClaim } from '@/lib/domain/sso';
import { oidcIdentityState } from '@/lib/db/queries/users';
import { applyRefresh, claimRefresh, markIdentityRemoved, releaseRefresh, type SsoSettings } from '@/lib/services/users';
import { discoveryUrl, oidcConfig, readOidcConfig, type OidcConfig } from './oidc-config';

/** While another request (any instance) refreshes a person, theirs stays honoured this much past the period. */
export const REFRESH_GRACE_MS = 60_000;
/** The discovered provider is asked for its metadata again after this long. */
const CLIENT_TTL_MS = 60 * 60_000;

export type Confirmation =
  | { ok: true; identity: boolean; refreshed?: boolean }
  | { ok: false; reason: 'removed' | 'no-groups' | 'unconfirmed' | 'provider-down' | 'deactivated' | 'off' };

const clientBox = processBox<{ key: string; at: number; client: BaseClient }>('sso.openid-client');

/** The provider's client (discovery once an hour), as next-auth builds it for sign-in. */
async function providerClient(config: OidcConfig): Promise<BaseClient> {
  const key = `${config.issuer}\0${config.clientId}\0${config.clientSecret}`;
  const known = clientBox.current;
  if (known && known.key === key && Date.now() - known.at < CLIENT_TTL_MS) return known.client;
  custom.setHttpOptionsDefaults({ timeout: 5000 });
  const issuer = await Issuer.discover(discoveryUrl(config.issuer));
  const client = new issuer.Client({ client_id: config.clientId, client_secret: config.clientSecret, token_endpoint_auth_method: 'client_secret_basic' });
  client[custom.clock_tolerance] = 10;
  clientBox.current = { key, at: Date.now(), client };
  return client;
}

const settingsOf = (c: OidcConfig): SsoSettings => ({ issuer: c.issuer, adminGroups: c.adminGroups, linkVerifiedEmail: c.linkVerifiedEmail });

/**
 * Whether the provider still vouches for the person (see above). `identity: false`: the account has no linked
 * identity, or it was linked by an administrator and never used to sign in (nothing to confirm). With single sign-on
 * off, an identity is not checked (`ok`); a caller that needs one (a session made through the provider) refuses.
 */
export async function confirmIdentity(userId: string, now = new Date()): Promise<Confirmation> {
  if (readOidcConfig().state === 'off') return { ok: true, identity: false };
  const config = oidcConfig();
  if (!config) return { ok: false, reason: 'off' };
  const state = await oidcIdentityState(userId);
  if (!state || state.lastSignInAt === null) return { ok: true, identity: false };
  if (state.status === 'removed') return { ok: false, reason: 'removed' };
  if (state.status === 'no-groups') return { ok: false, reason: 'no-groups' };
  const period = config.refreshSeconds * 1000;
  if (now.getTime() - state.syncedAt.getTime() < period) return { ok: true, identity: true };
  const turn = await claimRefresh(userId, state.syncedAt, now);
  if (!turn) {
    // Another request is refreshing (or just did): its answer, or the last confirmation for a little longer.
    const again = await oidcIdentityState(userId);
    if (again?.status === 'active' && now.getTime() - again.syncedAt.getTime() < period + REFRESH_GRACE_MS) return { ok: true, identity: true, refreshed: again.syncedAt.getTime() !== state.syncedAt.getTime() };
    return { ok: false, reason: again?.status === 'removed' ? 'removed' : again?.status === 'no-groups' ? 'no-groups' : 'unconfirmed' };
  }
  if (!turn.refreshToken) {
    await releaseRefresh(userId);
    return { ok: false, reason: 'unconfirmed' };
  }
  let claims: Record<string, unknown>;
  let refreshToken: string | null;
  try {
    const client = await providerClient(config);
    // openid-client verifies a returned ID token as at sign-in (signature, issuer, audience, expiry).
    const tokens = await client.refresh(turn.refreshToken);
    claims = tokens.id_token ? (tokens.claims() as Record<string, unknown>) : ((await client.userinfo(tokens)) as Record<string, unknown>);
    refreshToken = tokens.refresh_token ?? null;
  } catch (e) {
    if (e instanceof errors.OPError && e.error === 'invalid_grant') {
      await markIdentityRemoved(settingsOf(config), userId, `the provider refused the refresh: ${(e.error_description ?? e.error).slice(0, 200)}`, now);
      return { ok: false, reason: 'removed' };
    }
    console.error(`[sso] refresh for user ${userId} failed: ${(e as Error).message?.split('\n')[0]}`);
    await releaseRefresh(userId);
    return { ok: false, reason: 'provider-down' };
  }
  const groups = readGroupsClaim(claims, config.groupsClaim);
  if (String(claims.sub) !== turn.subject || !groups.ok) {
    console.error(`[sso] refresh for user ${userId}: ${groups.ok ? 'another subject' : `no '${config.groupsClaim}' claim`} in the provider's answer`);
    await releaseRefresh(userId);
    return { ok: false, reason: 'unconfirmed' };
  }
  const applied = await applyRefresh(settingsOf(config), userId, groups.groups, refreshToken, now);
  return applied.ok ? { ok: true, identity: true, refreshed: true } : { ok: false, reason: applied.status };
}

/** Why an API token of a person signed in through the provider is refused, in words (401). */
export function confirmationRefusal(reason: Exclude<Confirmation, { ok: true }>['reason']): string {
  switch (reason) {
    case 'removed':
      return 'Authentication required: the identity provider no longer knows this person, so their API tokens stopped working.';
    case 'no-groups':
      return 'Authentication required: this person is in none of the identity-provider groups the console maps, so their API tokens stopped working.';
    case 'provider-down':
      return 'Authentication required: the identity provider could not be reached to confirm this person; try again shortly.';
    default:
      return 'Authentication required: the identity provider has not confirmed this person recently; sign in to the console through the provider again.';
  }
}
