-- AlterTable
ALTER TABLE "RingRollout" ADD COLUMN     "endSnapshot" TEXT,
ADD COLUMN     "rollbackOnFailure" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "StageVerdict" (
    "id" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "groupName" TEXT NOT NULL,
    "policyName" TEXT NOT NULL,
    "revisionId" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "ringId" TEXT,
    "nodes" INTEGER NOT NULL,
    "failedNodes" INTEGER NOT NULL,
    "failedResource" TEXT,
    "failedCookbook" TEXT,
    "evidence" TEXT NOT NULL DEFAULT '{}',
    "summary" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "overriddenAt" TIMESTAMP(3),
    "overriddenByEmail" TEXT,
    "overrideReason" TEXT,

    CONSTRAINT "StageVerdict_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "StageVerdict_key_key" ON "StageVerdict"("key");

-- CreateIndex
CREATE INDEX "StageVerdict_policyName_revisionId_idx" ON "StageVerdict"("policyName", "revisionId");

-- CreateIndex
CREATE INDEX "StageVerdict_groupName_policyName_idx" ON "StageVerdict"("groupName", "policyName");

-- Issue 43: before, a gated ring also rolled back automatically when a ring node failed, and keeps doing so for existing rings.
UPDATE "RingRollout" SET "rollbackOnFailure" = "gateOnConvergence";

-- Issue 41: a bad mark made by the automatic rollback becomes what it always was: evidence about the stage that rolled
-- back (a stage verdict, with the rollback's evidence), not a global mark every other stage inherits.
INSERT INTO "StageVerdict" ("id", "key", "groupName", "policyName", "revisionId", "source", "nodes", "failedNodes", "evidence", "summary", "createdAt")
SELECT 'migrated-' || o."id", 'rollback:' || o."key", o."groupName", o."policyName", o."revisionId", 'rollback',
       COALESCE((o."evidence"::json ->> 'runs')::integer, 0), COALESCE((o."evidence"::json ->> 'failed')::integer, 0),
       o."evidence", b."reason", o."createdAt"
FROM "RolloutOutcome" o JOIN "BadRevision" b ON b."policyName" = o."policyName" AND b."revisionId" = o."revisionId"
WHERE o."event" = 'rollout.rolled_back' AND b."markedById" IS NULL AND b."markedByEmail" = 'system (automatic rollback)';
DELETE FROM "BadRevision" WHERE "markedById" IS NULL AND "markedByEmail" = 'system (automatic rollback)'
  AND EXISTS (SELECT 1 FROM "StageVerdict" v WHERE v."policyName" = "BadRevision"."policyName" AND v."revisionId" = "BadRevision"."revisionId");
