/**
 * The one way objects enter the search index (issue 25): every write of a
 * node, client or data bag item calls these inside its own transaction, after
 * writing the object's row, so the index is never behind the database.
 */
import type { Tx } from '@/lib/db/client';
import { removeFromIndex, renameInIndex, writeIndexDoc, writeNewIndexDocsMany } from '@/lib/db/queries/search';
import { clientSearchDocument, dataBagItemSearchDocument, nodeSearchDocument } from '@/lib/domain/search/expand';

/** The index a data bag's items are searched in (GET /search/BAG). */
export const bagIndex = (bag: string) => `bag:${bag}`;

/** Indexes a node as GET /nodes/NAME answers it (a first save or any later one: only its changed parts are written). */
export async function indexNode(tx: Tx, node: Record<string, unknown> & { name: string }): Promise<void> {
  await writeIndexDoc(tx, 'node', node.name, nodeSearchDocument(node));
}

/** Indexes many nodes none of which is indexed yet (bulk loads), in a few statements for all of them. */
export async function indexNewNodes(tx: Tx, nodes: readonly (Record<string, unknown> & { name: string })[]): Promise<void> {
  await writeNewIndexDocsMany(
    tx,
    'node',
    nodes.map((n) => ({ name: n.name, doc: nodeSearchDocument(n) })),
  );
}

export async function unindexNode(tx: Tx, name: string): Promise<void> {
  await removeFromIndex(tx, 'node', name);
}

/** Indexes a client (after a create, an update or a rename from `previousName`). */
export async function indexClient(tx: Tx, client: { name: string; validator: boolean }, previousName?: string): Promise<void> {
  if (previousName && previousName !== client.name) await renameInIndex(tx, 'client', previousName, client.name);
  await writeIndexDoc(tx, 'client', client.name, clientSearchDocument(client));
}

export async function unindexClient(tx: Tx, name: string): Promise<void> {
  await removeFromIndex(tx, 'client', name);
}

/** Indexes a data bag item (its JSON as stored). */
export async function indexDataBagItemDocument(tx: Tx, bag: string, itemId: string, item: Record<string, unknown>): Promise<void> {
  await writeIndexDoc(tx, bagIndex(bag), itemId, dataBagItemSearchDocument(bag, item));
}

export async function unindexDataBagItem(tx: Tx, bag: string, id: string): Promise<void> {
  await removeFromIndex(tx, bagIndex(bag), id);
}
