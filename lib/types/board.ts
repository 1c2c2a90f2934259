/** The stage board's DTOs (the board query, the API and the board components share them). */

export interface BoardCell {
  revisionId: string;
  verified: boolean;
  since: string;
  nodes: number;
  nodesOnRevision: number;
  /** Compared with the nearest stage to the left that has this policy: null when there is none. */
  differsFromPrevious: boolean | null;
  /** The stage actually compared with (the nearest visible stage to the left that has this policy), or null. */
  comparedWith: string | null;
  /**
   * When it differs: `behind` when this stage runs an older revision than `comparedWith` (waiting
   * for promotion), `ahead` when it runs a newer one (changed without passing through `comparedWith`).
   */
  relation: 'behind' | 'ahead' | null;
  cookbooksChanged: number;
}

export interface BoardData {
  stages: { name: string; description: string; position: number; canPromote: boolean }[];
  /** `latestRevisionId`: the policy's newest revision, wherever it runs (a fresh upload may run nowhere yet). */
  policies: { name: string; team: string | null; latestRevisionId: string | null; cells: Record<string, BoardCell | null> }[];
  teams: string[];
  generatedAt: string;
}
