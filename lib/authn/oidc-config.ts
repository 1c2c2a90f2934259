/**
 * Issue 45: single sign-on's configuration, from the environment (the names are a contract: README, Configuration).
 * Read at each call (cheap), so a test process can set them before it signs in.
 */
import { parseGroupList, parseLocalLogin, type LocalLogin } from '@/lib/domain/sso';

export interface OidcConfig {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The button's label. */
  name: string;
  groupsClaim: string;
  adminGroups: string[];
  linkVerifiedEmail: boolean;
  /** A sign-in through the provider is trusted this long; then the console asks the provider again (refresh token). */
  refreshSeconds: number;
  scopes: string;
}

/** The provider's id in next-auth: the callback URL is <PUBLIC_URL>/api/auth/callback/oidc. */
export const OIDC_PROVIDER_ID = 'oidc';
/** Default of OIDC_REFRESH_SECONDS: ten minutes. */
export const DEFAULT_REFRESH_SECONDS = 600;
const DEFAULT_SCOPES = 'openid email profile offline_access';

export type OidcConfigResult = { state: 'off' } | { state: 'on'; config: OidcConfig } | { state: 'invalid'; problem: string };

/** Single sign-on is on when OIDC_ISSUER is set; then the client id and secret must be too. */
export function readOidcConfig(env: NodeJS.ProcessEnv = process.env): OidcConfigResult {
  const issuer = env.OIDC_ISSUER?.trim();
  if (!issuer) return { state: 'off' };
  const missing = ['OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET'].filter((k) => !env[k]?.trim());
  if (missing.length) return { state: 'invalid', problem: `${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not set` };
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    return { state: 'invalid', problem: 'OIDC_ISSUER is not a URL' };
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname))) return { state: 'invalid', problem: 'OIDC_ISSUER must be an https:// URL (http:// only on this machine)' };
  const refreshRaw = env.OIDC_REFRESH_SECONDS?.trim();
  const refreshSeconds = refreshRaw ? Number(refreshRaw) : DEFAULT_REFRESH_SECONDS;
  if (!Number.isInteger(refreshSeconds) || refreshSeconds < 1 || refreshSeconds > 86_400) return { state: 'invalid', problem: 'OIDC_REFRESH_SECONDS must be a whole number of seconds from 1 to 86400' };
  const link = (env.OIDC_LINK_VERIFIED_EMAIL ?? 'false').trim().toLowerCase();
  if (link !== 'true' && link !== 'false') return { state: 'invalid', problem: 'OIDC_LINK_VERIFIED_EMAIL must be true or false' };
  return {
    state: 'on',
    config: {
      issuer,
      clientId: env.OIDC_CLIENT_ID!.trim(),
      clientSecret: env.OIDC_CLIENT_SECRET!.trim(),
      name: env.OIDC_NAME?.trim() || 'Single sign-on',
      groupsClaim: env.OIDC_GROUPS_CLAIM?.trim() || 'groups',
      adminGroups: parseGroupList(env.OIDC_ADMIN_GROUPS),
      linkVerifiedEmail: link === 'true',
      refreshSeconds,
      scopes: env.OIDC_SCOPES?.trim() || DEFAULT_SCOPES,
    },
  };
}

/** The configuration when single sign-on is on and valid, else null. */
export function oidcConfig(): OidcConfig | null {
  const r = readOidcConfig();
  return r.state === 'on' ? r.config : null;
}

/** LOCAL_LOGIN (true | false | admins); a value that is none of them refuses password sign-in (fails closed). */
export function localLogin(): LocalLogin {
  return parseLocalLogin(process.env.LOCAL_LOGIN) ?? 'false';
}

/** What the login page needs to know. */
export function signInOptions(): { sso: { name: string } | null; ssoProblem: string | null; localLogin: LocalLogin; localLoginProblem: string | null } {
  const r = readOidcConfig();
  return {
    sso: r.state === 'on' ? { name: r.config.name } : null,
    ssoProblem: r.state === 'invalid' ? r.problem : null,
    localLogin: localLogin(),
    localLoginProblem: parseLocalLogin(process.env.LOCAL_LOGIN) ? null : 'LOCAL_LOGIN must be true, false or admins',
  };
}

/** The well-known discovery document of an issuer (OpenID Connect Discovery 1.0, section 4). */
export function discoveryUrl(issuer: string): string {
  return `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
}
