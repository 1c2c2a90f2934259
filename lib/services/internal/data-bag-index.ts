import type { Tx } from '@/lib/db/client';

/**
 * The search hook of data bag items (issue 25 indexes them): called inside
 * the transaction of every item write, with the item document as stored
 * (parsed) or null when the item was deleted. Deleting a bag calls it for
 * each of its items first. Nothing is indexed until search lands.
 */
export async function indexDataBagItem(_tx: Tx, _bag: string, _itemId: string, _document: Record<string, unknown> | null): Promise<void> {}
