/** The comparison's DTOs (the compare query, the API and the compare components share them). */
import type { LockDiff, PolicyLock, ResourceTakeover } from '@/lib/domain';

export interface CompareSide {
  spec: string;
  label: string;
  stage: string | null;
  revisionId: string;
  verified: boolean;
  createdAt: string;
  lock: PolicyLock;
}

/**
 * Comparing `from` → `to` reads as a promotion: what `to` would change if it
 * took `from`'s revision. So the diff runs from `to`'s lock (what is there
 * now) to `from`'s lock (what would arrive): staging → production shows
 * production's upgrades.
 */
export interface Comparison {
  policy: string;
  from: Omit<CompareSide, 'lock'>;
  to: Omit<CompareSide, 'lock'>;
  /** diffLocks(to's lock, from's lock). */
  diff: LockDiff;
  /** Incoming cookbooks whose `provides` would take over a core resource name. */
  takeovers: ResourceTakeover[];
  /** Canonical text of `to` (now) and `from` (incoming): the text diff's left and right. */
  currentText: string;
  incomingText: string;
  /** "name identifier" of the incoming revision's cookbooks that have no artifact on the server (nodes would fail to fetch them). */
  missingArtifacts: string[];
  /** True when `to` is a stage that refuses revisions with missing artifacts (unless overridden with a reason). */
  toRequiresArtifacts: boolean;
}
