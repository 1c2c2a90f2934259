import { applyMigrations } from '../lib/db/migrate';
import { redactedUrl } from '../lib/db/url';

const applied = await applyMigrations();
console.log(applied.length ? `applied ${applied.join(', ')} to ${redactedUrl()}` : `database is up to date (${redactedUrl()})`);
