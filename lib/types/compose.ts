/** What the Compose page offers the editor (lib/services/compose/pages.ts builds it): policies, their revisions, stages and what each runs. */
import type { IncludeSource } from '@/lib/validation/compose';

export interface ComposeOptions {
  stages: { name: string; canPromote: boolean }[];
  /** policy → stage → the revision it runs there (only stages the reader may view). */
  active: Record<string, Record<string, string>>;
  canCreate: boolean;
  policies: {
    name: string;
    canSave: boolean;
    /** Newest first; `includes`: what a composed revision was composed from (re-lock). */
    revisions: { revisionId: string; createdAt: string; origin: string; includes: { name: string; source: IncludeSource }[] | null }[];
  }[];
}
