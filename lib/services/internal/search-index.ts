/**
 * The one way objects enter the search index (issue 25): every write of a
 * node, client or data bag item calls these inside its own transaction, after
 * writing the object's row, so the index is never behind the database.
 */
import type { Tx } from '@/lib/db/client';
import { removeFromIndex, renameInIndex, dropIndex, writeIndexRows, writeNewIndexRowsMany } from '@/lib/db/queries/search';
import { clientSearchDocument, dataBagItemSearchDocument, flattenForIndex, nodeSearchDocument } from '@/lib/domain/search/expand';

/** The index a data bag's items are searched in (GET /search/BAG). */
export const bagIndex = (bag: string) => `bag:${bag}`;

const nodeRows = (node: Record<string, unknown>) => flattenForIndex(nodeSearchDocument(node));

/** Indexes a node as GET /nodes/NAME answers it; `previous` is the node as it was before this write (null: new). */
export async function indexNode(tx: Tx, node: Record<string, unknown> & { name: string }, previous: Record<string, unknown> | null): Promise<void> {
  await writeIndexRows(tx, 'node', node.name, nodeRows(node), previous ? nodeRows(previous) : null);
}

/** Indexes many nodes none of which is indexed yet (bulk loads), in fewer statements than one indexNode each. */
export async function indexNewNodes(tx: Tx, nodes: readonly (Record<string, unknown> & { name: string })[]): Promise<void> {
  await writeNewIndexRowsMany(
    tx,
    'node',
    nodes.map((n) => ({ name: n.name, rows: nodeRows(n) })),
  );
}

export async function unindexNode(tx: Tx, name: string): Promise<void> {
  await removeFromIndex(tx, 'node', name);
}

/** Indexes a client (after a create, an update or a rename from `previousName`). */
export async function indexClient(tx: Tx, client: { name: string; validator: boolean }, previousName?: string): Promise<void> {
  if (previousName && previousName !== client.name) await renameInIndex(tx, 'client', previousName, client.name);
  await writeIndexRows(tx, 'client', client.name, flattenForIndex(clientSearchDocument(client)), null);
}

export async function unindexClient(tx: Tx, name: string): Promise<void> {
  await removeFromIndex(tx, 'client', name);
}

/** Indexes a data bag item (its JSON as stored); `previous`: the item before this write, when known. */
export async function indexDataBagItemDocument(tx: Tx, bag: string, itemId: string, item: Record<string, unknown>, previous: Record<string, unknown> | null = null): Promise<void> {
  const rows = (i: Record<string, unknown>) => flattenForIndex(dataBagItemSearchDocument(bag, i));
  await writeIndexRows(tx, bagIndex(bag), itemId, rows(item), previous ? rows(previous) : null);
}

export async function unindexDataBagItem(tx: Tx, bag: string, id: string): Promise<void> {
  await removeFromIndex(tx, bagIndex(bag), id);
}

