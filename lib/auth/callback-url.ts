/**
 * Where to send a user after sign-in: a path on this console, never another
 * host (issue 17, item 14). Browsers read '\' as '/', so '/\evil.example' is
 * '//evil.example'; control characters and tabs are dropped by URL parsers.
 * Anything but a plain same-origin path becomes '/'.
 */
export function safeCallbackPath(raw: string | null | undefined): string {
  if (!raw || raw.length > 2000) return '/';
  if (!raw.startsWith('/') || raw.startsWith('//') || /[\\\u0000-\u001f\u007f]/.test(raw)) return '/';
  try {
    const base = 'http://console.invalid';
    const u = new URL(raw, base);
    if (u.origin !== base) return '/';
    return u.pathname + u.search + u.hash;
  } catch {
    return '/';
  }
}
