import path from 'node:path';
import { defineConfig } from 'vitest/config';

const alias = {
  '@': path.resolve(import.meta.dirname),
  // 'server-only' throws outside React Server Components; services and routes are tested directly.
  'server-only': path.resolve(import.meta.dirname, 'test/server-only-stub.ts'),
};

export default defineConfig({
  resolve: { alias },
  test: {
    projects: [
      {
        resolve: { alias },
        test: {
          name: 'unit',
          environment: 'node',
          // A hang guard, not a speed check: property tests are CPU-bound and a loaded machine
          // (two npm test at once on 2 cores) ran one past vitest's 5 s default.
          testTimeout: 60_000,
          sequence: { groupOrder: 0 },
          include: ['lib/**/*.test.ts', 'components/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: ['**/*.integration.test.ts', '**/*.chef.test.ts', '**/*.pg.test.ts', '**/*.deployed.test.ts', 'node_modules/**'],
        },
      },
      {
        resolve: { alias },
        test: {
          name: 'integration',
          environment: 'node',
          sequence: { groupOrder: 1 },
          include: ['**/*.integration.test.ts'],
          exclude: ['node_modules/**', '.next/**'],
          globalSetup: ['test/global-setup-integration.ts'],
          setupFiles: ['test/setup-integration.ts'],
          // Each file gets its own database; two cores, so two at a time.
          maxWorkers: 2,
          // Hang guards, not speed checks (tests wait on events): two npm test at once beside other work
          // (load 16 on 2 cores) ran seeds past 60 s and PostgreSQL race tests past 30 s.
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
      {
        resolve: { alias },
        test: {
          // The same suite on PostgreSQL: run through `npm run test:integration:pg` (scripts/test-pg.ts), which finds the server binaries.
          name: 'integration-pg',
          environment: 'node',
          sequence: { groupOrder: 2 },
          include: ['**/*.integration.test.ts', 'test/pg/**/*.pg.test.ts'],
          // security-db exercises SQLite's own file locks and read-only files.
          exclude: ['node_modules/**', '.next/**', 'test/integration/security-db.integration.test.ts'],
          globalSetup: ['test/global-setup-pg.ts'],
          setupFiles: ['test/setup-pg.ts'],
          maxWorkers: 2,
          // Hang guards, not speed checks (tests wait on events): two npm test at once beside other work
          // (load 16 on 2 cores) ran seeds past 60 s and PostgreSQL race tests past 30 s.
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
      {
        resolve: { alias },
        test: {
          // The production build as the README deploys it (SQLite; two instances on PostgreSQL, one over HTTPS), driven
          // with Chromium, the Chef tools and the API: run through `npm run test:deployed` (scripts/test-deployed.ts),
          // which builds when no current build is there and says what could not run. One deployment at a time.
          name: 'deployed',
          environment: 'node',
          include: ['test/deployed/**/*.deployed.test.ts'],
          exclude: ['node_modules/**', '.next/**'],
          maxWorkers: 1,
          fileParallelism: false,
          // Hang guards, not speed checks (the tests wait on results).
          testTimeout: 900_000,
          hookTimeout: 600_000,
        },
      },
      {
        resolve: { alias },
        test: {
          // Needs the real Chef tools; run through `npm run test:chef` (scripts/test-chef.ts), which finds them.
          name: 'chef',
          environment: 'node',
          include: ['test/chef/**/*.chef.test.ts'],
          exclude: ['node_modules/**', '.next/**'],
          globalSetup: ['test/global-setup-integration.ts'],
          setupFiles: ['test/setup-integration.ts'],
          maxWorkers: 1,
          testTimeout: 300_000,
          hookTimeout: 300_000,
        },
      },
    ],
  },
});
