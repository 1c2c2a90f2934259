import type { Tx } from '@/lib/db/client';
import type { Actor } from '@/lib/auth/permissions';

/** Who acts without a request of their own: the seed, a CLI script, a promotion request applied for its requester. */
export interface SystemActor {
  kind: 'system';
  userId: string | null;
  email: string;
  /** What it acts through, e.g. "promotion-request:<id>" (audited). */
  via?: string;
}

/** Who acts, for the audit log: an authenticated actor (user or client, with how it came in as `via`) or the system. */
export type AuditActor = Actor | SystemActor;

export interface AuditInput {
  action: string;
  targetType: 'policy' | 'revision' | 'stage' | 'pointer' | 'node' | 'user' | 'team' | 'token' | 'permission' | 'scenario' | 'chef-key' | 'client' | 'artifact' | 'git-repository' | 'login' | 'webhook' | 'data-bag' | 'data-bag-item' | 'organization' | 'saved-search';
  target: string;
  groupName?: string | null;
  policyName?: string | null;
  before?: unknown;
  after?: unknown;
  reason?: string | null;
  requestId?: string | null;
}

/** The `via` of an actor the importer (issue 27) acts as: `import:<run id>`. */
export const IMPORT_VIA_PREFIX = 'import:';

/**
 * Writes one audit event inside the caller's transaction (append-only: nothing updates these rows).
 * Issue 27: a change the importer makes (its actor comes `via` "import:<run>") is also audited as
 * `import`, in the same transaction, naming the change it made and the run.
 */
export async function audit(tx: Tx, actor: AuditActor | null, e: AuditInput) {
  const via = actor?.via;
  if (via?.startsWith(IMPORT_VIA_PREFIX) && e.action !== 'import') {
    await write(tx, actor, { ...e, action: 'import', after: { change: e.action, run: via.slice(IMPORT_VIA_PREFIX.length), ...(e.after && typeof e.after === 'object' ? { details: e.after } : {}) } });
  }
  return write(tx, actor, e);
}

function write(tx: Tx, actor: AuditActor | null, e: AuditInput) {
  return tx.auditEvent.create({
    data: {
      actorId: actor?.userId ?? null,
      actorEmail: actor?.email ?? 'system',
      action: e.action,
      targetType: e.targetType,
      target: e.target,
      groupName: e.groupName ?? null,
      policyName: e.policyName ?? null,
      before: e.before === undefined ? null : JSON.stringify(e.before),
      after: e.after === undefined ? null : JSON.stringify(e.after),
      reason: e.reason ?? null,
      requestId: e.requestId ?? null,
      via: actor?.via ?? null,
    },
    select: { id: true },
  });
}
