import { createMigration } from '../lib/db/migrate-dev';

const name = process.argv[2];
if (!name) {
  console.error('usage: npm run db:new-migration -- <name>');
  process.exit(2);
}
try {
  const dirs = await createMigration(name);
  if (!dirs) console.log('schema unchanged: no migration created');
  else for (const d of [dirs.sqlite, dirs.postgresql]) if (d) console.log(`created ${d}`);
} catch (e) {
  console.error((e as Error).message);
  process.exit(1);
}
