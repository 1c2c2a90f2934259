import type { Tx } from '@/lib/db/client';
import { dropIndex } from '@/lib/db/queries/search';
import { bagIndex, indexDataBagItemDocument, unindexDataBagItem } from './search-index';

/**
 * The search hook of data bag items (issue 25 indexes them): called inside
 * the transaction of every item write, with the item document as stored
 * (parsed) or null when the item was deleted. Deleting a bag drops its whole
 * index at once (`unindexDataBag`).
 */
export async function indexDataBagItem(tx: Tx, bag: string, itemId: string, document: Record<string, unknown> | null): Promise<void> {
  if (document) await indexDataBagItemDocument(tx, bag, itemId, document);
  else await unindexDataBagItem(tx, bag, itemId);
}

/** Drops a deleted bag's index in one statement (a bag may hold 10,000 items: one delete each ran past the transaction timeout under load). */
export async function unindexDataBag(tx: Tx, bag: string): Promise<void> {
  await dropIndex(tx, bagIndex(bag));
}
