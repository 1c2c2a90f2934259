/**
 * The PostgreSQL schema is generated from the single source schema
 * (prisma/schema.prisma): same models, another provider, its own client
 * output. `npm run db:pg-schema` writes it; a test fails when the committed
 * file is not what this function produces.
 */
import fs from 'node:fs';
import path from 'node:path';

export const SOURCE_SCHEMA = 'prisma/schema.prisma';
export const PG_SCHEMA = 'prisma/postgres/schema.prisma';

const HEADER = [
  '// GENERATED from prisma/schema.prisma by `npm run db:pg-schema` (lib/db/pg-schema.ts): do not edit.',
  '// The PostgreSQL twin of the source schema; its client goes to lib/db/generated-pg, its migrations to',
  '// prisma/postgres/migrations. A test fails when this file drifts from the source.',
  '',
].join('\n');

/** The PostgreSQL schema text for a source (SQLite) schema text. */
export function postgresSchemaFrom(source: string): string {
  let out = source;
  const provider = /(datasource\s+db\s*\{[^}]*?provider\s*=\s*)"sqlite"/;
  if (!provider.test(out)) throw new Error(`${SOURCE_SCHEMA}: expected a datasource db with provider = "sqlite"`);
  out = out.replace(provider, '$1"postgresql"');
  const output = /(generator\s+client\s*\{[^}]*?output\s*=\s*)"\.\.\/lib\/db\/generated"/;
  if (!output.test(out)) throw new Error(`${SOURCE_SCHEMA}: expected generator client with output = "../lib/db/generated"`);
  out = out.replace(output, '$1"../../lib/db/generated-pg"');
  return HEADER + out;
}

/** Writes prisma/postgres/schema.prisma from the source; returns whether it changed. */
export function writePostgresSchema(root = process.cwd()): boolean {
  const next = postgresSchemaFrom(fs.readFileSync(path.join(root, SOURCE_SCHEMA), 'utf8'));
  const file = path.join(root, PG_SCHEMA);
  const prev = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null;
  if (prev === next) return false;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, next);
  return true;
}
