'use server';
/**
 * Issue 42: the first-run page's submit (app/setup). No session: the one-time setup code from the server log is
 * the credential, checked and spent inside the transaction that makes the administrator (lib/services/users/first-admin.ts).
 */
import { asAppError } from '@/lib/errors';
import { claimFirstRun } from '@/lib/services/users';

export interface SetupState {
  done: boolean;
  email?: string;
  error?: string;
  field?: string;
}

export async function setupAction(_prev: SetupState, form: FormData): Promise<SetupState> {
  const get = (k: string) => String(form.get(k) ?? '');
  if (get('password') !== get('password2')) return { done: false, error: 'The two passwords differ.', field: 'password2' };
  try {
    const r = await claimFirstRun({ code: get('code'), email: get('email'), name: get('name') || undefined, password: get('password') });
    return { done: true, email: r.email };
  } catch (e) {
    const known = asAppError(e);
    if (!known) throw e;
    return { done: false, error: known.message, field: known.errors?.[0]?.path?.slice(1) };
  }
}
