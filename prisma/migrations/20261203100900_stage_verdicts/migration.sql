-- CreateTable
CREATE TABLE "StageVerdict" (
    "id" TEXT NOT NULL PRIMARY KEY,
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
    "createdAt" DATETIME NOT NULL,
    "overriddenAt" DATETIME,
    "overriddenByEmail" TEXT,
    "overrideReason" TEXT
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_RingRollout" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "groupId" TEXT NOT NULL,
    "policyId" TEXT NOT NULL,
    "groupName" TEXT NOT NULL,
    "policyName" TEXT NOT NULL,
    "fromRevisionPk" TEXT NOT NULL,
    "fromRevisionId" TEXT NOT NULL,
    "toRevisionPk" TEXT NOT NULL,
    "toRevisionId" TEXT NOT NULL,
    "steps" TEXT NOT NULL,
    "step" INTEGER NOT NULL DEFAULT -1,
    "percent" REAL NOT NULL DEFAULT 0,
    "status" TEXT NOT NULL,
    "openKey" TEXT,
    "gateOnConvergence" BOOLEAN NOT NULL DEFAULT false,
    "soakMinutes" INTEGER,
    "rollbackOnFailure" BOOLEAN NOT NULL DEFAULT false,
    "endSnapshot" TEXT,
    "requestId" TEXT,
    "approvedBy" TEXT,
    "reason" TEXT,
    "stepStartedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "createdById" TEXT,
    "createdByEmail" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "endedAt" DATETIME,
    "endReason" TEXT
);
INSERT INTO "new_RingRollout" ("approvedBy", "createdAt", "createdByEmail", "createdById", "endReason", "endedAt", "fromRevisionId", "fromRevisionPk", "gateOnConvergence", "groupId", "groupName", "id", "openKey", "percent", "policyId", "policyName", "reason", "requestId", "soakMinutes", "status", "step", "stepStartedAt", "steps", "toRevisionId", "toRevisionPk", "updatedAt") SELECT "approvedBy", "createdAt", "createdByEmail", "createdById", "endReason", "endedAt", "fromRevisionId", "fromRevisionPk", "gateOnConvergence", "groupId", "groupName", "id", "openKey", "percent", "policyId", "policyName", "reason", "requestId", "soakMinutes", "status", "step", "stepStartedAt", "steps", "toRevisionId", "toRevisionPk", "updatedAt" FROM "RingRollout";
DROP TABLE "RingRollout";
ALTER TABLE "new_RingRollout" RENAME TO "RingRollout";
CREATE UNIQUE INDEX "RingRollout_openKey_key" ON "RingRollout"("openKey");
CREATE INDEX "RingRollout_groupId_policyId_status_idx" ON "RingRollout"("groupId", "policyId", "status");
CREATE INDEX "RingRollout_status_idx" ON "RingRollout"("status");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

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
       COALESCE(CAST(json_extract(o."evidence", '$.runs') AS INTEGER), 0), COALESCE(CAST(json_extract(o."evidence", '$.failed') AS INTEGER), 0),
       o."evidence", b."reason", o."createdAt"
FROM "RolloutOutcome" o JOIN "BadRevision" b ON b."policyName" = o."policyName" AND b."revisionId" = o."revisionId"
WHERE o."event" = 'rollout.rolled_back' AND b."markedById" IS NULL AND b."markedByEmail" = 'system (automatic rollback)';
DELETE FROM "BadRevision" WHERE "markedById" IS NULL AND "markedByEmail" = 'system (automatic rollback)'
  AND EXISTS (SELECT 1 FROM "StageVerdict" v WHERE v."policyName" = "BadRevision"."policyName" AND v."revisionId" = "BadRevision"."revisionId");
