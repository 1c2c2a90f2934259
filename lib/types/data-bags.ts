/** Data bag DTOs shared by the service, the actions and the pages (no database types). */

/** plain: readable JSON; encrypted: Chef's encrypted item format (1, 2 or 3) per field; vault-keys: a chef-vault `ITEM_keys` item. */
export type DataBagItemKind = 'plain' | 'encrypted' | 'vault-keys';

/** What a user may do with a bag: read its items, or also write them and delete it. */
export type DataBagLevel = 'none' | 'read' | 'write';

export interface DataBagSummaryDto {
  name: string;
  itemCount: number;
  /** Empty: every client reads the bag (Chef's default). Otherwise only the clients of nodes in these stages. */
  stages: string[];
  grants: { teamId: string; team: string; level: 'read' | 'write' }[];
  myLevel: DataBagLevel;
}

export interface DataBagItemSummaryDto {
  id: string;
  kind: DataBagItemKind;
  /** For encrypted items: the highest format version among its fields (1, 2 or 3). */
  version: number | null;
  /** For encrypted items: the fields that hold encrypted values. */
  encryptedKeys: string[];
  /** Set when the item is a chef-vault item (an `ITEM_keys` item sits next to it). */
  vault: VaultInfoDto | null;
  updatedAt: string;
}

export interface VaultInfoDto {
  admins: string[];
  clients: string[];
  searchQuery: string | null;
  mode: string | null;
  /** Nodes of the bag's stages (all nodes when unrestricted) that the search query selects but whose client holds no key. */
  missing: string[];
  /** Why `missing` could not be computed, when it could not (a query beyond `field:value` terms joined by AND). */
  missingNote: string | null;
}

export interface DataBagDetailDto extends DataBagSummaryDto {
  items: DataBagItemSummaryDto[];
  /** The reader may change the bag's settings (`data.manage`): its stage restriction and team grants. */
  canManage: boolean;
  /** Stages an admin may restrict the bag to, and teams that may be granted rights (admins only; empty otherwise). */
  allStages: string[];
  allTeams: { id: string; name: string }[];
}

export interface DataBagItemHistoryDto {
  id: string;
  at: string;
  actor: string | null;
  via: string | null;
  action: string;
  /** Plain items: the documents before and after (pretty JSON); encrypted items: null (only that it changed). */
  before: string | null;
  after: string | null;
}

export interface DataBagItemDetailDto {
  bag: string;
  myLevel: DataBagLevel;
  item: DataBagItemSummaryDto;
  /** The document as stored, pretty-printed. */
  document: string;
  history: DataBagItemHistoryDto[];
}
