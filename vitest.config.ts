import path from 'node:path';
import { defineConfig } from 'vitest/config';

const alias = {
  '@': path.resolve(import.meta.dirname),
  // 'server-only' throws outside React Server Components; services and routes are tested directly.
  'server-only': path.resolve(import.meta.dirname, 'test/server-only-stub.ts'),
};

/** Integration files of pure application logic: not run again on PostgreSQL (see the integration-pg project). */
const SQLITE_ONLY_LOGIC = [
  'admin-coverage',
  'api-contracts',
  'approval-invariant',
  'chef-artifacts',
  'chef-groups',
  'chef-pedant-access',
  'chef-pedant-clients',
  'chef-pedant-cookbook-artifacts',
  'chef-pedant-data-bags',
  'chef-pedant-keys',
  'chef-pedant-nodes',
  'chef-pedant-policies',
  'chef-pedant-policy-groups',
  'chef-pedant-sandboxes',
  'chef-protocol',
  'client-rights',
  'compose',
  'data-bags',
  'diff-api',
  'groups-api',
  'guard-preview',
  'import',
  'import-console',
  'key-generation',
  'organizations-api',
  'previews-api',
  'release-path',
  'scenarios',
  'security-api',
  'security-auth',
  'security-git',
  'security-input',
  'security-moves-claims-uploads',
  'security-pages',
  'shutdown',
  'ui-layer',
  'write-funnel',
];

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
          // security-db exercises SQLite's own file locks and read-only files. The others left out here are pure
          // application logic (authorization rules, validation, Chef API shapes, contracts, diffs, composition,
          // import mapping) that runs through Prisma the same way on either database: they run on SQLite in
          // `test:integration:sqlite`, and the production build runs on PostgreSQL in `test:deployed`. Kept here
          // (issue 40, CI time): what differs between the databases — concurrency and races (multi-instance,
          // promotion, guarded-stages, webhooks-guarded, rings, organizations, org-membership, association-requests,
          // policies-api, journey-notifications-schedule), migrations (migrations, organizations-migration,
          // database-portability), SQL of its own (board, rollout-views, chef-read-memo, ops, backup), search
          // (chef-search, nodes-page), run ingest (data-collector, rollout), and test/pg/.
          exclude: ['node_modules/**', '.next/**', 'test/integration/security-db.integration.test.ts', ...SQLITE_ONLY_LOGIC.map((f) => `test/integration/${f}.integration.test.ts`)],
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
          // Two files at a time (CI time): each file starts its own console, chef-zero and nodes on free ports in its own
          // directories; measured 369 s instead of ≈ 500 s for the 15 files on 2 cores.
          maxWorkers: 2,
          testTimeout: 300_000,
          hookTimeout: 300_000,
        },
      },
    ],
  },
});
