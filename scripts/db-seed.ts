import { createDb } from '../lib/db/client';
import { applyMigrations } from '../lib/db/migrate';
import { seedDemo } from '../lib/seed/seed-demo';

await applyMigrations();
const client = createDb();
const { seeded } = await seedDemo(client);
console.log(seeded ? 'seeded the demo organisation' : 'database already has data: seed skipped');
await client.$disconnect();
