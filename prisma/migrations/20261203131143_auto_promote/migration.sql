-- CreateTable
CREATE TABLE "AutomationEvent" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "key" TEXT,
    "groupName" TEXT NOT NULL,
    "policyName" TEXT,
    "revisionId" TEXT,
    "kind" TEXT NOT NULL,
    "summary" TEXT NOT NULL,
    "actorEmail" TEXT NOT NULL,
    "evidence" TEXT NOT NULL DEFAULT '{}',
    "createdAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "CheckEvaluation" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "groupName" TEXT NOT NULL,
    "policyName" TEXT NOT NULL,
    "revisionId" TEXT NOT NULL,
    "checkName" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "result" TEXT NOT NULL,
    "value" REAL,
    "detail" TEXT NOT NULL,
    "durationMs" INTEGER NOT NULL,
    "createdAt" DATETIME NOT NULL
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_StageRolloutRule" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "groupName" TEXT NOT NULL,
    "gateEnabled" BOOLEAN NOT NULL DEFAULT false,
    "gateMinSuccessPct" INTEGER NOT NULL DEFAULT 90,
    "gateMinNodes" INTEGER NOT NULL DEFAULT 1,
    "gateMaxFailurePct" INTEGER NOT NULL DEFAULT 10,
    "gateSoakMinutes" INTEGER NOT NULL DEFAULT 0,
    "rollbackEnabled" BOOLEAN NOT NULL DEFAULT false,
    "rollbackWindowMinutes" INTEGER NOT NULL DEFAULT 60,
    "rollbackFailurePct" INTEGER NOT NULL DEFAULT 50,
    "rollbackMinRuns" INTEGER NOT NULL DEFAULT 3,
    "gateChecks" TEXT NOT NULL DEFAULT '[]',
    "autoPromoteEnabled" BOOLEAN NOT NULL DEFAULT false,
    "autoPromoteSoakMinutes" INTEGER,
    "heldAt" DATETIME,
    "heldByEmail" TEXT,
    "heldReason" TEXT,
    "heldSource" TEXT,
    "autoWaiting" TEXT NOT NULL DEFAULT '{}',
    "updatedByEmail" TEXT,
    "updatedAt" DATETIME NOT NULL
);
INSERT INTO "new_StageRolloutRule" ("gateEnabled", "gateMaxFailurePct", "gateMinNodes", "gateMinSuccessPct", "gateSoakMinutes", "groupName", "id", "rollbackEnabled", "rollbackFailurePct", "rollbackMinRuns", "rollbackWindowMinutes", "updatedAt", "updatedByEmail") SELECT "gateEnabled", "gateMaxFailurePct", "gateMinNodes", "gateMinSuccessPct", "gateSoakMinutes", "groupName", "id", "rollbackEnabled", "rollbackFailurePct", "rollbackMinRuns", "rollbackWindowMinutes", "updatedAt", "updatedByEmail" FROM "StageRolloutRule";
DROP TABLE "StageRolloutRule";
ALTER TABLE "new_StageRolloutRule" RENAME TO "StageRolloutRule";
CREATE UNIQUE INDEX "StageRolloutRule_groupName_key" ON "StageRolloutRule"("groupName");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE UNIQUE INDEX "AutomationEvent_key_key" ON "AutomationEvent"("key");

-- CreateIndex
CREATE INDEX "AutomationEvent_groupName_policyName_createdAt_idx" ON "AutomationEvent"("groupName", "policyName", "createdAt");

-- CreateIndex
CREATE INDEX "CheckEvaluation_groupName_policyName_revisionId_checkName_createdAt_idx" ON "CheckEvaluation"("groupName", "policyName", "revisionId", "checkName", "createdAt");

-- CreateIndex
CREATE INDEX "CheckEvaluation_createdAt_idx" ON "CheckEvaluation"("createdAt");
