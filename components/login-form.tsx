'use client';

import { signIn } from 'next-auth/react';
import { useRef, useState, type FormEvent } from 'react';
import { dateTime } from '@/lib/format';

/** Issue 43: the seeded demo's users, named only while the demo is seeded here (the sign-in page decides). */
export interface DemoHint {
  password: string;
  users: { email: string; can: string }[];
}

export function LoginForm({ callbackUrl, demo = null }: { callbackUrl: string; demo?: DemoHint | null }) {
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const email = useRef<HTMLInputElement>(null);
  const password = useRef<HTMLInputElement>(null);

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
      setError(`Too many failed sign-ins. Try again after ${dateTime(locked)} (${Math.max(1, Math.ceil((locked.getTime() - Date.now()) / 1000))} seconds).`);
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
    <>
      <form onSubmit={onSubmit} className="space-y-4" noValidate>
        <div>
          <label htmlFor="email" className="mb-1 block text-xs font-medium text-slate-600">
            Email
          </label>
          <input ref={email} id="email" name="email" type="email" autoComplete="username" required autoFocus className="input" />
        </div>
        <div>
          <label htmlFor="password" className="mb-1 block text-xs font-medium text-slate-600">
            Password
          </label>
          <input ref={password} id="password" name="password" type="password" autoComplete="current-password" required className="input" />
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
      {demo && (
        <section aria-labelledby="demo-logins-h" className="mt-5 rounded-md border border-slate-200 bg-slate-50 p-3 text-sm text-slate-800" data-testid="demo-logins">
          <h2 id="demo-logins-h" className="font-medium text-slate-900">
            Trying the demo?
          </h2>
          <p className="mt-1 text-slate-700">
            This console runs the seeded demo organisation. Its users share the password <span className="mono">{demo.password}</span>; choose one to fill the form:
          </p>
          <ul className="mt-2 space-y-1">
            {demo.users.map((u) => (
              <li key={u.email}>
                <button
                  type="button"
                  className="font-medium text-indigo-800 underline underline-offset-2 hover:text-indigo-950"
                  onClick={() => {
                    if (email.current) email.current.value = u.email;
                    if (password.current) password.current.value = demo.password;
                    password.current?.focus();
                  }}
                >
                  {u.email}
                </button>
                {u.can && <span className="text-slate-600"> — {u.can}</span>}
              </li>
            ))}
          </ul>
        </section>
      )}
    </>
  );
}
