'use client';

import { useEffect } from 'react';

/** Unexpected failures: a plain message and a retry; details stay in the server log. */
export default function ConsoleError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  useEffect(() => {
    console.error(error);
  }, [error]);
  return (
    <div role="alert" className="card mx-auto max-w-lg space-y-3 p-6 text-center">
      <h1 className="text-lg font-semibold">This page could not be loaded</h1>
      <p className="text-slate-600">Something went wrong on the server{error.digest ? ` (reference ${error.digest})` : ''}. Try again; if it keeps failing, the server log has the details.</p>
      <button type="button" className="btn btn-primary" onClick={reset}>
        Try again
      </button>
    </div>
  );
}
