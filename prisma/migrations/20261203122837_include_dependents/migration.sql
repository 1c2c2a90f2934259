-- Issue 48: a revision's direct includes, so dependents at any depth are found without parsing documents,
-- and the members of a joint promotion request. Column adds, not a table rebuild (SQLite 3.35+): other
-- migrations may rebuild PolicyRevision in parallel.
ALTER TABLE "PromotionRequest" ADD COLUMN "members" TEXT;
ALTER TABLE "PolicyRevision" ADD COLUMN "includeDigest" TEXT NOT NULL DEFAULT '[]';

-- Revisions stored before: their included_policy_locks, as stored.
UPDATE "PolicyRevision"
SET "includeDigest" = json_extract("document", '$.included_policy_locks')
WHERE "document" LIKE '%"included_policy_locks"%'
  AND json_valid("document")
  AND json_type("document", '$.included_policy_locks') = 'array';
