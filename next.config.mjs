const dev = process.env.NODE_ENV !== 'production';

// Security headers for every response (issue 17, item 4). Next's own inline
// bootstrap scripts need 'unsafe-inline' without a per-request nonce; framing
// is refused outright, and nothing is loaded from other origins.
const csp = [
  "default-src 'self'",
  `script-src 'self' 'unsafe-inline'${dev ? " 'unsafe-eval'" : ''}`,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  `connect-src 'self'${dev ? ' ws: wss:' : ''}`,
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const securityHeaders = [
  { key: 'Content-Security-Policy', value: csp },
  { key: 'X-Frame-Options', value: 'DENY' },
  { key: 'X-Content-Type-Options', value: 'nosniff' },
  { key: 'Referrer-Policy', value: 'strict-origin-when-cross-origin' },
  { key: 'Permissions-Policy', value: 'camera=(), microphone=(), geolocation=()' },
];

/** @type {import('next').NextConfig} */
const nextConfig = {
  poweredByHeader: false,
  // `npm test` type-checks the whole project first (npm run typecheck) and sets CONSOLE_TYPECHECKED=1 for its
  // build (test:e2e): that build skips its own TypeScript pass, the same check again. Every other build checks.
  typescript: { ignoreBuildErrors: process.env.CONSOLE_TYPECHECKED === '1' },
  // Native and WebAssembly modules stay outside the server bundle.
  serverExternalPackages: ['better-sqlite3', '@node-rs/argon2', '@prisma/adapter-better-sqlite3', '@prisma/adapter-pg', 'pg', '@prisma/schema-engine-wasm'],
  experimental: {
    serverActions: { bodySizeLimit: '8mb' },
  },
  async headers() {
    return [{ source: '/:path*', headers: securityHeaders }];
  },
};

export default nextConfig;
