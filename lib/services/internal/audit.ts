import type { Tx } from '@/lib/db/client';

/** Who acts: a signed-in user (an Access fits), or the system (seed, CLI) with a null user id. */
export interface Actor {
  userId: string | null;
  email: string;
  /** How the actor authenticated, when through a Chef key ("chef-key:<name>/<key>"). */
  via?: string;
}

export interface AuditInput {
  action: string;
  targetType: 'policy' | 'revision' | 'stage' | 'pointer' | 'node' | 'user' | 'team' | 'token' | 'permission' | 'scenario' | 'chef-key' | 'client' | 'artifact' | 'git-repository' | 'login' | 'webhook' | 'data-bag' | 'data-bag-item';
  target: string;
  groupName?: string | null;
  policyName?: string | null;
  before?: unknown;
  after?: unknown;
  reason?: string | null;
  requestId?: string | null;
}

/** Writes one audit event inside the caller's transaction (append-only: nothing updates these rows). */
export async function audit(tx: Tx, actor: Actor | null, e: AuditInput) {
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
