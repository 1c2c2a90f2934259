/**
 * Issue 48: the dependents of an included policy in a stage, their rebuild and their joint promotion, as the
 * API answers them (snake_case) and the console shows them.
 */
import type { LockDiff } from '@/lib/domain';
import type { MovePreviewDto } from './move-preview';

/** One way a dependent carries the included policy. */
export interface CarriedIncludeDto {
  /** The included policy's revision it carries this way. */
  revision_id: string;
  /** Whether that is the revision the stage runs. */
  current: boolean;
  /** The policies between the dependent and the included policy (empty: a direct include). */
  via: string[];
  /** The include name and its source (`source_options`) at the last step. */
  include_name: string;
  source: Record<string, unknown>;
}

export interface DependentDto {
  policy: string;
  /** The dependent's revision in the stage. */
  revision_id: string;
  /** 1: it includes the policy directly. */
  depth: number;
  /** Every way it carries the included policy carries the revision the stage runs. */
  current: boolean;
  carries: CarriedIncludeDto[];
}

export interface DependentsDto {
  stage: string;
  policy: string;
  /** What the stage runs of the included policy (null: none). */
  revision_id: string | null;
  dependents: DependentDto[];
  /** How many dependents carry an older revision. */
  older: number;
  /** The next stage in promotion order the reader may view (null: none). */
  next_stage: string | null;
}

/** Where a change of a rebuilt dependent comes from: "from base 1a2b3c4d5e via include" (or via mid). */
export interface ProvenanceDto {
  policy: string;
  revision_id: string;
  /** The policies it came through (empty: the included policy itself, directly). */
  via: string[];
}

/** One thing a dependent gets from its rebuild, with where it comes from. */
export interface RebuildChangeDto {
  kind: 'cookbook' | 'run_list' | 'named_run_list' | 'attribute';
  /** "nginx 11.5.0 → 12.0.0 (major)", "recipe[ntp::default] added", "default ntp.servers changed". */
  text: string;
  from: ProvenanceDto | null;
}

/**
 * rebuilt: a new revision (stored and moved unless a dry run); unchanged: the rebuild gives its current lock;
 * conflict: its own part and the moved include disagree (nothing written); blocked: it cannot be rebuilt here
 * (`problems` says why); pinned: it includes the policy by revision id (chef update keeps the pin).
 */
export type RebuildStatus = 'rebuilt' | 'unchanged' | 'conflict' | 'blocked' | 'pinned';

export interface RebuildItemDto {
  policy: string;
  status: RebuildStatus;
  /** Its revision in the stage. */
  from_revision_id: string;
  /** The rebuilt revision (null unless rebuilt). */
  to_revision_id: string | null;
  /** Stored now (false: the same revision was stored before). Absent on a dry run. */
  created?: boolean;
  /** One sentence for the list. */
  message: string;
  /** Its direct includes: what each was and becomes. */
  includes: { name: string; policy: string; from_revision_id: string; to_revision_id: string; moved: boolean; source: Record<string, unknown> }[];
  /** The semantic diff of its lock: what it gets (null unless rebuilt). */
  diff: LockDiff | null;
  changes: RebuildChangeDto[];
  conflicts: { kind: string; message: string; path?: string; pointer?: string; cookbook?: string; sources: string[]; values?: unknown[] }[];
  warnings: { kind: string; message: string }[];
  problems: string[];
}

export interface IncludeChangeDto {
  /** The audit event of the pointer move that brought the stage's revision of the included policy. */
  audit_id: string | null;
  from_revision_id: string | null;
  to_revision_id: string;
  at: string | null;
  by: string | null;
}

export interface RebuildDependentsDto {
  stage: string;
  policy: string;
  revision_id: string | null;
  dry_run: boolean;
  /** The include change the rebuild follows (linked from each rebuilt revision's audit row). */
  caused_by: IncludeChangeDto | null;
  /** What the stage runs now, per policy: send it back as `expected` with the confirm. */
  expected: Record<string, string | null>;
  rebuilds: RebuildItemDto[];
  /** Rebuilt revisions stored (0 on a dry run). */
  written: number;
  /** Pointers moved in the stage (0 on a dry run, or when the stage asked for approvals). */
  moved: number;
  /** The guard's answer for moving the rebuilt dependents (dry run). */
  guard?: JointMoveDto | null;
}

/** One member of a joint move. */
export interface JointMemberDto {
  policy: string;
  /** What the target runs now, and what it would run. */
  from_revision_id: string | null;
  to_revision_id: string;
  /** The included policy itself, or a dependent. */
  role: 'included' | 'dependent';
  preview: MovePreviewDto;
}

/** The guard's answer for several pointers moving together (approvals sized by the combined diff). */
export interface JointMoveDto {
  stage: string;
  outcome: 'unchanged' | 'move' | 'request' | 'blocked';
  action: string;
  summary: string;
  approvals_required: number;
  reasons: { rule: string; approvals: number; message: string; details: string[] }[];
  blocked_by: string[];
  needs: MovePreviewDto['needs'];
  members: JointMemberDto[];
}

export interface PromoteWithDependentsDto {
  from: string;
  to: string;
  policy: string;
  dry_run: boolean;
  guard: JointMoveDto;
  /** Dependents left out: they still carry an older revision of the included policy (rebuild them first), or are pinned. */
  left_out: { policy: string; reason: string }[];
  /** Send back as `expected`: what the target runs of each member now. */
  expected: Record<string, string | null>;
  promoted: { policy: string; from_revision_id: string | null; to_revision_id: string | null; changed: boolean; audit_id: string | null }[];
}
