/**
 * `npm run db:pg-baseline`: regenerates prisma/postgres/schema.prisma from
 * prisma/schema.prisma and replaces prisma/postgres/migrations with one
 * baseline (0_init) for the current schema (needs the PostgreSQL binaries
 * or PG_SCRATCH_URL). Run it after merging
 * branches that changed the schema without writing PostgreSQL migrations,
 * while no PostgreSQL database in service depends on the folder's history.
 */
import { writePgBaseline } from '../lib/db/migrate-dev';

console.log(`wrote ${await writePgBaseline()}`);
