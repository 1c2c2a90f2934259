/** Endpoints chef-client calls and tolerates missing (404): the data collector and required_recipe. */
import { notFound } from '@/lib/errors';
import { route, type ChefRoute, type Handler } from '../context';

const tolerated = (what: string): Handler => async () => {
  throw notFound(`${what} is not provided by this server`);
};

export const toleratedRoutes: ChefRoute[] = [
  route('POST', 'data-collector', tolerated('The data collector')),
  route('GET', 'required_recipe', tolerated('A required recipe')),
];
