import type { ReactNode } from 'react';
import { useRouter } from 'next/navigation';
import { useMutation, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { toast } from 'sonner';
import { errorMessage, formErrorsOf } from './client';
import type { FormErrors } from './form-errors';

export type SuccessToast = string | { message: string; description?: ReactNode } | null | undefined;

export interface ActionMutationOptions<V, R> {
  /** The success toast (none when it returns null). */
  success?: (result: R, vars: V) => SuccessToast;
  /** The caller's follow-up (close a dialog, navigate, keep a one-time secret). */
  then?: (result: R, vars: V) => void;
  /** React Query data the action changed: invalidated (and awaited) before `then`. */
  invalidate?: QueryKey[];
  /**
   * `toast` (default): a failure is a toast with the server's message.
   * `inline`: the component shows `formErrors` itself (per field, and a form-level alert): no toast.
   */
  errors?: 'toast' | 'inline';
  /** Re-render the server components after success (default true). */
  refresh?: boolean;
}

/**
 * The one way the UI runs a server action (wrapped by `runAction`): a React
 * Query mutation that, on success, invalidates what changed, runs the caller's
 * follow-up, toasts and refreshes the server-rendered page; on failure, either
 * toasts or hands the form the server's `{ fieldErrors, formError }`.
 */
export function useActionMutation<V, R>(mutationFn: (vars: V) => Promise<R>, opts: ActionMutationOptions<V, R> = {}) {
  const router = useRouter();
  const queryClient = useQueryClient();
  const mutation = useMutation({
    mutationFn,
    onSuccess: async (result, vars) => {
      for (const queryKey of opts.invalidate ?? []) await queryClient.invalidateQueries({ queryKey });
      opts.then?.(result, vars);
      const message = opts.success?.(result, vars);
      if (typeof message === 'string') toast.success(message);
      else if (message) toast.success(message.message, { description: message.description });
      if (opts.refresh !== false) router.refresh();
    },
    onError: (e) => {
      if (opts.errors !== 'inline') toast.error(errorMessage(e));
    },
  });
  const formErrors: FormErrors | null = mutation.error ? formErrorsOf(mutation.error) : null;
  return { ...mutation, formErrors };
}
