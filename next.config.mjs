import { securityHeaders } from './lib/ops/security-headers.mjs';

const dev = process.env.NODE_ENV !== 'production';

// Security headers for every response (issue 17, item 4; the same list the node:http front sends with /api/v1).
const securityHeaderList = securityHeaders(dev);

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
    return [{ source: '/:path*', headers: securityHeaderList }];
  },
};

export default nextConfig;
