/** Builds one migrated template database; each integration test file copies it. */
import fs from 'node:fs';
import path from 'node:path';
import { applyMigrations } from '@/lib/db/migrate';

export const TEMPLATE = path.resolve('data/test/template.db');

export default async function setup() {
  fs.mkdirSync(path.dirname(TEMPLATE), { recursive: true });
  fs.rmSync(TEMPLATE, { force: true });
  await applyMigrations(`file:${TEMPLATE}`);
}
