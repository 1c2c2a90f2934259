import type { Tx } from '@/lib/db/client';
import { indexDataBagItemDocument, unindexDataBagItem } from './search-index';

/**
 * The search hook of data bag items (issue 25 indexes them): called inside
 * the transaction of every item write, with the item document as stored
 * (parsed) or null when the item was deleted. Deleting a bag calls it for
 * each of its items first.
 */
export async function indexDataBagItem(tx: Tx, bag: string, itemId: string, document: Record<string, unknown> | null): Promise<void> {
  if (document) await indexDataBagItemDocument(tx, bag, itemId, document);
  else await unindexDataBagItem(tx, bag, itemId);
}
