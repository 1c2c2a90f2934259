import { db } from '@/lib/db/client';
import { assertCan, type Access } from '@/lib/auth/permissions';
import { audit, chooseOwnerTeam, checkRevision, storeRevision, withoutServerFields, transaction } from '@/lib/services/funnel';

export interface UploadRevisionInput {
  policyName: string;
  /** The document exactly as received; it is stored and served byte-for-byte. */
  text: string;
  /** Owning team for a policy that does not exist yet (see chooseOwnerTeam: required when the uploader is in several teams). */
  ownerTeam?: string | null;
  requestId?: string;
  /** Issue 42: 'import' for a revision the importer brings (its upload time says nothing of its age). */
  origin?: 'import';
}

export interface UploadRevisionResult {
  status: 201 | 200;
  policy: string;
  revisionId: string;
  created: boolean;
  /** The document as stored (server-only fields removed). */
  document: string;
}

/**
 * POST /policies/:name/revisions — creates the policy if needed (its owner team), stores the revision.
 * Idempotent under concurrent identical uploads: the one that loses the race on the policy's or the
 * revision's unique key runs again and finds what the winner stored (200, stored once).
 */
export async function uploadRevision(access: Access, input: UploadRevisionInput): Promise<UploadRevisionResult> {
  const text = withoutServerFields(input.text);
  const revision = checkRevision(text, input.policyName);
  const { lock } = revision;
  return transaction(async (tx) => {
    let policy = await tx.policy.findUnique({ where: { name: input.policyName }, select: { id: true, name: true, ownerTeamId: true } });
    if (!policy) {
      assertCan(access, 'policy.create');
      const ownerTeamId = await chooseOwnerTeam(tx, access, input.ownerTeam);
      policy = await tx.policy.create({ data: { name: input.policyName, ownerTeamId }, select: { id: true, name: true, ownerTeamId: true } });
      await audit(tx, access, {
        action: 'policy.create',
        targetType: 'policy',
        target: input.policyName,
        policyName: input.policyName,
        after: { ownerTeamId },
        requestId: input.requestId,
      });
    } else {
      assertCan(access, 'policy.upload', { ownerTeamId: policy.ownerTeamId });
    }
    const stored = await storeRevision(tx, access, policy, revision, input.origin ?? 'upload');
    if (stored.created) {
      await audit(tx, access, {
        action: 'revision.upload',
        targetType: 'revision',
        target: `${input.policyName}@${lock.revision_id}`,
        policyName: input.policyName,
        after: { revision_id: lock.revision_id, cookbooks: Object.keys(lock.cookbook_locks).length },
        requestId: input.requestId,
      });
    }
    return { status: stored.created ? 201 : 200, policy: input.policyName, revisionId: lock.revision_id, created: stored.created, document: text };
  });
}
