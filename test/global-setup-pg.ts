/**
 * The PostgreSQL integration run (`npm run test:integration:pg`): one
 * throwaway server for the run, a template database migrated once; each test
 * file clones it (test/setup-pg.ts). The server stops when the run ends; a
 * crashed run's server is reaped by the next start (test/pg-server.ts).
 */
import type { TestProject } from 'vitest/node';
import { applyMigrations } from '@/lib/db/migrate';
import { createDatabase, startPgServer } from './pg-server';

export const PG_TEMPLATE = 'policy_template';

declare module 'vitest' {
  export interface ProvidedContext {
    pgAdminUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const server = await startPgServer();
  try {
    const url = await createDatabase(server, PG_TEMPLATE);
    await applyMigrations(url);
    project.provide('pgAdminUrl', server.url('postgres'));
  } catch (e) {
    await server.stop();
    throw e;
  }
  return async () => {
    await server.stop();
  };
}
