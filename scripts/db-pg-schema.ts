/** `npm run db:pg-schema`: writes prisma/postgres/schema.prisma from prisma/schema.prisma (`--check`: exit 1 when it would change). */
import fs from 'node:fs';
import { PG_SCHEMA, SOURCE_SCHEMA, postgresSchemaFrom, writePostgresSchema } from '../lib/db/pg-schema';

if (process.argv.includes('--check')) {
  const want = postgresSchemaFrom(fs.readFileSync(SOURCE_SCHEMA, 'utf8'));
  const have = fs.existsSync(PG_SCHEMA) ? fs.readFileSync(PG_SCHEMA, 'utf8') : '';
  if (want !== have) {
    console.error(`${PG_SCHEMA} is out of date: run npm run db:pg-schema`);
    process.exit(1);
  }
  console.log(`${PG_SCHEMA} is up to date`);
} else {
  console.log(writePostgresSchema() ? `wrote ${PG_SCHEMA}` : `${PG_SCHEMA} unchanged`);
}
