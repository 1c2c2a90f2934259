/**
 * The e2e suite's identity provider (playwright.sso.config.ts): test/oidc/provider.ts in a process of its own on
 * SSO_PROVIDER_PORT, registered for the consoles' callback URLs (SSO_REDIRECT_URIS, comma-separated), with the
 * people the e2e specs sign in as (e2e-sso/people.ts) and the HTTP test controls.
 */
import { E2E_PEOPLE, E2E_SSO_CLIENT } from '../../e2e-sso/people';
import { startTestProvider } from './provider';

const provider = await startTestProvider({
  port: Number(process.env.SSO_PROVIDER_PORT),
  redirectUris: (process.env.SSO_REDIRECT_URIS ?? '').split(',').filter(Boolean),
  clientId: E2E_SSO_CLIENT.id,
  clientSecret: E2E_SSO_CLIENT.secret,
  people: structuredClone(E2E_PEOPLE),
  httpControls: true,
});
console.log(`test provider at ${provider.issuer}`);
const stop = () => void provider.stop().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
