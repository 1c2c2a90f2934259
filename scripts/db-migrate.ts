import { applyMigrations } from '../lib/db/migrate';
import { databaseUrl } from '../lib/db/url';

const applied = await applyMigrations();
console.log(applied.length ? `applied ${applied.join(', ')} to ${databaseUrl()}` : `database is up to date (${databaseUrl()})`);
