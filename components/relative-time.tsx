'use client';

import { useEffect, useState } from 'react';
import { age, dateTime } from '@/lib/format';

/**
 * "5m ago", without a hydration mismatch: the server and the first client render
 * both measure from `now` (when given, e.g. the board's generatedAt) or show the
 * absolute time; the relative form replaces it after mount.
 */
export function RelativeTime({ iso, now }: { iso: string; now?: string }) {
  const [mounted, setMounted] = useState(false);
  useEffect(() => setMounted(true), []);
  const text = mounted ? age(iso) : now ? age(iso, Date.parse(now)) : dateTime(iso);
  return (
    <time dateTime={iso} title={dateTime(iso)}>
      {text}
    </time>
  );
}
