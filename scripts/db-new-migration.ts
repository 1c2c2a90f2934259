import { createMigration } from '../lib/db/migrate';

const name = process.argv[2];
if (!name) {
  console.error('usage: npm run db:new-migration -- <name>');
  process.exit(2);
}
const dir = await createMigration(name);
console.log(dir ? `created ${dir}` : 'schema unchanged: no migration created');
