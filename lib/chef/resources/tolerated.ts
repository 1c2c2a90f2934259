/** Endpoints chef-client calls and tolerates missing (404): required_recipe. (The data collector is served: data-collector.ts.) */
import { notFound } from '@/lib/errors';
import { route, type ChefRoute, type Handler } from '../context';

const tolerated = (what: string): Handler => async () => {
  throw notFound(`${what} is not provided by this server`);
};

export const toleratedRoutes: ChefRoute[] = [
  route('GET', 'required_recipe', tolerated('A required recipe')),
];
