/** A child process serving the Chef routes (the handler scripts/serve.ts puts in front of Next) on DATABASE_URL and PORT. */
import { startChefServer } from '../../lib/chef/http';

const { url } = await startChefServer(Number(process.env.PORT));
console.log(url);
