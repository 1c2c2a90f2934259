/** Input parsing lives with the shared field schemas (lib/validation/parse); re-exported for the services. */
export { parseInput } from '@/lib/validation/parse';
