/** The security headers of every response (lib/ops/security-headers.mjs). */
export function securityHeaders(dev: boolean): { key: string; value: string }[];
