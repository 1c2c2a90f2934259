/** Issue 25: the Nodes page (search over every node the user may see) and saved searches. */
export interface NodeListRowDto {
  name: string;
  stage: string | null;
  policy: string | null;
  platform: string | null;
  revisionApplied: string | null;
  lastCheckIn: string | null;
}

export interface NodeSearchDto {
  /** The query as typed ('' : every node). */
  query: string;
  total: number;
  start: number;
  rows: NodeListRowDto[];
  /** The parser's message (with the position) for a malformed query; nothing was searched. */
  error: string | null;
}

export interface SavedSearchDto {
  id: string;
  name: string;
  query: string;
  createdAt: string;
}
