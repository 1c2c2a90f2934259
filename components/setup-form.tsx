'use client';

import { useActionState } from 'react';
import Link from 'next/link';
import { setupAction, type SetupState } from '@/lib/actions/setup-action';

/** Issue 42: the first-run form (setup code, e-mail, name, password twice). */
export function SetupForm() {
  const [state, action, pending] = useActionState<SetupState, FormData>(setupAction, { done: false });
  if (state.done) {
    return (
      <div role="status" className="space-y-3 text-sm">
        <p>
          Administrator <strong>{state.email}</strong> created. The setup code is spent and this page is closed.
        </p>
        <Link href="/login" className="btn btn-primary w-full justify-center">
          Sign in
        </Link>
      </div>
    );
  }
  const field = (id: string, label: string, type: string, auto: string, hint?: string) => (
    <div>
      <label htmlFor={id} className="mb-1 block text-xs font-medium text-slate-600">
        {label}
      </label>
      <input id={id} name={id} type={type} autoComplete={auto} required={id !== 'name'} className="input" aria-invalid={state.field === id || undefined} aria-describedby={hint ? `${id}-hint` : undefined} />
      {hint && (
        <p id={`${id}-hint`} className="mt-1 text-xs text-slate-600">
          {hint}
        </p>
      )}
    </div>
  );
  return (
    <form action={action} className="space-y-4" noValidate>
      {field('code', 'Setup code', 'text', 'off', 'Printed in the server log at start-up ("No administrator yet"); single use.')}
      {field('email', 'Email', 'email', 'username')}
      {field('name', 'Name (optional)', 'text', 'name')}
      {field('password', 'Password', 'password', 'new-password', 'At least 10 characters.')}
      {field('password2', 'The same password again', 'password', 'new-password')}
      {state.error && (
        <p role="alert" className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-700">
          {state.error}
        </p>
      )}
      <button type="submit" className="btn btn-primary w-full justify-center" disabled={pending}>
        {pending ? 'Creating…' : 'Create the first administrator'}
      </button>
    </form>
  );
}
