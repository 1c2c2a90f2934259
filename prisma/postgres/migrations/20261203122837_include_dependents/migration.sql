-- Issue 48: a revision's direct includes, so dependents at any depth are found without parsing documents,
-- and the members of a joint promotion request.
ALTER TABLE "PolicyRevision" ADD COLUMN     "includeDigest" TEXT NOT NULL DEFAULT '[]';

ALTER TABLE "PromotionRequest" ADD COLUMN     "members" TEXT;

-- Revisions stored before: their included_policy_locks, as stored (json, not jsonb: any valid document casts).
UPDATE "PolicyRevision"
SET "includeDigest" = ("document"::json -> 'included_policy_locks')::text
WHERE "document" LIKE '%"included_policy_locks"%'
  AND json_typeof("document"::json -> 'included_policy_locks') = 'array';
