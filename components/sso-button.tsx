'use client';

import { signIn } from 'next-auth/react';
import { useState } from 'react';

/** Issue 45: sign in through the identity provider (next-auth's provider `oidc`); the provider's pages take it from here. */
export function SsoButton({ name, callbackUrl, primary }: { name: string; callbackUrl: string; primary: boolean }) {
  const [pending, setPending] = useState(false);
  return (
    <button
      type="button"
      className={`btn ${primary ? 'btn-primary' : ''} w-full justify-center`}
      disabled={pending}
      data-testid="sso-button"
      onClick={() => {
        setPending(true);
        void signIn('oidc', { callbackUrl });
      }}
    >
      {pending ? `Opening ${name}…` : `Sign in with ${name}`}
    </button>
  );
}
