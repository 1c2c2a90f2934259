/** @type {import('next').NextConfig} */
const nextConfig = {
  poweredByHeader: false,
  // Native and WebAssembly modules stay outside the server bundle.
  serverExternalPackages: ['better-sqlite3', '@node-rs/argon2', '@prisma/adapter-better-sqlite3', '@prisma/schema-engine-wasm'],
  experimental: {
    serverActions: { bodySizeLimit: '8mb' },
  },
};

export default nextConfig;
