/** Issue 27: the importer's report (stored with each ImportRun, shown on Admin → Import). */

/** The kinds of object the importer brings over (and those it lists as not imported). */
export type ImportKind = 'policy-revision' | 'stage' | 'policy-group' | 'cookbook-artifact' | 'data-bag' | 'data-bag-item' | 'node' | 'client' | 'client-key' | 'user' | 'user-key' | 'team' | 'right';

export interface ImportEntry {
  kind: ImportKind;
  /** e.g. "hello-app@4fe1…", "dev/hello-app", "secrets/db". */
  name: string;
  /** Why it was skipped, what conflicts, or what changed ("created", "updated"). */
  detail?: string;
}

export interface ImportReport {
  source: string;
  dryRun: boolean;
  prefer: 'source' | 'console' | null;
  /** Objects written (or, in a dry run, that would be). */
  imported: ImportEntry[];
  /** How many source objects the console already held exactly. */
  unchanged: number;
  /** Objects not imported because the source could not give them or the console refused them. */
  skipped: ImportEntry[];
  /** Console objects that differ from the source and were left as they are (no --prefer, or --prefer console). */
  conflicts: ImportEntry[];
  /** What the console does not serve (classic cookbooks, roles, environments), by kind. */
  notImported: { kind: 'cookbooks' | 'roles' | 'environments'; names: string[] }[];
  /** Cookbook file bytes read from the source. */
  bytes: number;
  /**
   * Issue 42/43: what needs a person's eye although nothing was refused: a node left on a policy its stage does
   * not run in the console (chef-client on it would fail there until the stage runs it), and why.
   */
  attention?: ImportEntry[];
  /** Issue 42: each imported person's resulting rights (`--rights`), the same in a dry run. */
  rights?: ImportRights;
}

export interface ImportRights {
  mode: 'chef' | 'view' | 'none';
  people: { user: string; email: string | null; rights: string[]; given: boolean; note?: string }[];
  /** What the mapping left out or what guards still decide (protected or frozen stages). */
  notes: string[];
}

/** One row of Admin → Import. */
export interface ImportRunDto {
  id: string;
  source: string;
  dryRun: boolean;
  prefer: string | null;
  status: string;
  startedBy: string;
  startedAt: string;
  finishedAt: string | null;
  imported: number;
  unchanged: number;
  skipped: number;
  conflicts: number;
  report: ImportReport | null;
}
