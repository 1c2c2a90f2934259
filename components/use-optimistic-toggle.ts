'use client';

import { useRef, useState } from 'react';
import { useRouter } from 'next/navigation';
import { useMutation } from '@tanstack/react-query';
import { toast } from 'sonner';
import { errorMessage } from '@/lib/actions/client';

type Shown = { on: boolean; from: boolean; seq: number };

/**
 * A checkbox that answers at once (issue 43): a click shows the new state immediately, the server action runs
 * behind it (React Query useMutation, one click after another per `scope`, in the order they were made), a
 * success toasts and refreshes the server-rendered page, and a failure puts the box back as the server has it and
 * says why. The shown value is the click's until the page's own value moves off the one the click started from
 * (the refresh brought the server's answer), so nothing flickers back in between.
 */
export function useOptimisticToggle<V extends { key: string; on: boolean }, R>(mutationFn: (vars: V) => Promise<R>, opts: { scope: string; success?: (result: R, vars: V) => string }) {
  const router = useRouter();
  const [shown, setShown] = useState<Record<string, Shown>>({});
  const seq = useRef(0);
  const mutation = useMutation({
    mutationFn,
    scope: { id: opts.scope },
    onMutate: (vars: V) => {
      const mine = ++seq.current;
      setShown((s) => ({ ...s, [vars.key]: { on: vars.on, from: !vars.on, seq: mine } }));
      return { seq: mine };
    },
    onError: (e, vars, ctx) => {
      // Back to what the server has (a later click on the same box keeps its own state).
      setShown((s) => {
        if (!ctx || s[vars.key]?.seq !== ctx.seq) return s;
        const rest = { ...s };
        delete rest[vars.key];
        return rest;
      });
      toast.error(errorMessage(e));
    },
    onSuccess: (result, vars) => {
      const message = opts.success?.(result, vars);
      if (message) toast.success(message);
      router.refresh();
    },
  });
  return {
    /** What the box shows: the latest click's state while the page still has the value it started from. */
    value: (key: string, server: boolean) => {
      const s = shown[key];
      return s && s.from === server ? s.on : server;
    },
    toggle: (vars: V) => mutation.mutate(vars),
    /** Whether this box shows a click the page has not caught up with yet (for aria-busy). */
    saving: (key: string, server: boolean) => shown[key]?.from === server,
  };
}
