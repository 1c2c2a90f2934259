'use client';

import { signIn } from 'next-auth/react';
import { useState, type FormEvent } from 'react';

export function LoginForm({ callbackUrl }: { callbackUrl: string }) {
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setPending(true);
    setError(null);
    const res = await signIn('credentials', {
      email: String(form.get('email') ?? ''),
      password: String(form.get('password') ?? ''),
      redirect: false,
    });
    if (res?.ok && !res.error) {
      window.location.assign(callbackUrl);
      return;
    }
    setPending(false);
    // The server locks sign-in after repeated failures and says until when (lib/authn/login.ts).
    const locked = res?.error?.startsWith('locked:') ? new Date(res.error.slice('locked:'.length)) : null;
    if (locked && !Number.isNaN(locked.getTime())) {
      setError(`Too many failed sign-ins. Try again after ${locked.toLocaleTimeString()} (${Math.max(1, Math.ceil((locked.getTime() - Date.now()) / 1000))} seconds).`);
      return;
    }
    if (res?.error === 'deactivated') {
      setError('Your account is deactivated. Ask an administrator to reactivate it.');
      return;
    }
    // Issue 45: LOCAL_LOGIN (lib/authn/login.ts).
    if (res?.error === 'local-login-off') {
      setError('Password sign-in is turned off on this console. Use single sign-on.');
      return;
    }
    if (res?.error === 'local-login-admins') {
      setError('Password sign-in is kept for the break-glass administrator. Use single sign-on.');
      return;
    }
    setError('Wrong email or password. Check both and try again.');
  }

  return (
    <form onSubmit={onSubmit} className="space-y-4" noValidate>
      <div>
        <label htmlFor="email" className="mb-1 block text-xs font-medium text-slate-600">
          Email
        </label>
        <input id="email" name="email" type="email" autoComplete="username" required autoFocus className="input" />
      </div>
      <div>
        <label htmlFor="password" className="mb-1 block text-xs font-medium text-slate-600">
          Password
        </label>
        <input id="password" name="password" type="password" autoComplete="current-password" required className="input" />
      </div>
      {error && (
        <p role="alert" className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-700">
          {error}
        </p>
      )}
      <button type="submit" className="btn btn-primary w-full justify-center" disabled={pending}>
        {pending ? 'Signing in…' : 'Sign in'}
      </button>
    </form>
  );
}
