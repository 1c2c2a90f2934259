'use client';

import { useRouter } from 'next/navigation';
import { useMutation } from '@tanstack/react-query';
import { toast } from 'sonner';
import { errorMessage } from './client';

/**
 * A mutation around a server action for admin-style forms: on success a toast
 * (when `success` returns a message), the caller's follow-up, and a refresh of
 * the server-rendered page; on failure a toast with the server's message.
 */
export function useActionMutation<V, R>(mutationFn: (vars: V) => Promise<R>, opts: { success?: (result: R, vars: V) => string | null; then?: (result: R, vars: V) => void } = {}) {
  const router = useRouter();
  return useMutation({
    mutationFn,
    onSuccess: (result, vars) => {
      const message = opts.success?.(result, vars);
      if (message) toast.success(message);
      opts.then?.(result, vars);
      router.refresh();
    },
    onError: (e) => toast.error(errorMessage(e)),
  });
}
