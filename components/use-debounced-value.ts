import { useEffect, useState } from 'react';

/**
 * `value`, once it has stayed the same for `ms` milliseconds: what a preview
 * query keys on, so typing does not start a request per keystroke. Compared
 * with Object.is: pass a primitive (a JSON string), not an object rebuilt on
 * every render.
 */
export function useDebouncedValue<T extends string | number | boolean | null>(value: T, ms = 400): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    if (Object.is(value, settled)) return;
    const t = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(t);
  }, [value, settled, ms]);
  return settled;
}
