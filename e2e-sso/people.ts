/** The people of the e2e suite's identity provider (test/oidc/serve-provider.ts) and the console's client there. */
export const E2E_SSO_CLIENT = { id: 'policy-console-e2e', secret: 'e2e-client-secret-not-a-real-one' };

export const E2E_PEOPLE = {
  ada: { password: 'ada-idp-password', email: 'ada@idp.example', emailVerified: true, name: 'Ada Admin', groups: ['console-admins'] },
  rel: { password: 'rel-idp-password', email: 'rel@idp.example', emailVerified: true, name: 'Rel Manager', groups: ['release-managers', 'everyone'] },
  vic: { password: 'vic-idp-password', email: 'vic@idp.example', emailVerified: true, name: 'Vic Viewer', groups: ['viewers', 'everyone'] },
};
export type E2ePerson = keyof typeof E2E_PEOPLE;
