-- CreateTable
CREATE TABLE "RunReport" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "runId" TEXT NOT NULL,
    "nodeName" TEXT NOT NULL,
    "clientName" TEXT,
    "groupName" TEXT,
    "policyName" TEXT,
    "revisionId" TEXT,
    "status" TEXT NOT NULL,
    "startTime" DATETIME NOT NULL,
    "endTime" DATETIME,
    "durationMs" INTEGER,
    "totalResources" INTEGER NOT NULL DEFAULT 0,
    "updatedResources" INTEGER NOT NULL DEFAULT 0,
    "failedResources" INTEGER NOT NULL DEFAULT 0,
    "errorClass" TEXT,
    "errorMessage" TEXT,
    "failedResource" TEXT,
    "failedCookbook" TEXT,
    "failedRecipe" TEXT,
    "resources" TEXT NOT NULL DEFAULT '[]',
    "deprecations" TEXT NOT NULL DEFAULT '[]',
    "chefVersion" TEXT,
    "source" TEXT NOT NULL DEFAULT 'chef_client',
    "receivedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "NodeRunState" (
    "nodeName" TEXT NOT NULL PRIMARY KEY,
    "groupName" TEXT,
    "policyName" TEXT,
    "revisionId" TEXT,
    "status" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "endTime" DATETIME NOT NULL,
    "failedResource" TEXT,
    "failedCookbook" TEXT,
    "errorClass" TEXT,
    "firstSuccessAt" DATETIME,
    "receivedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "StageRolloutRule" (
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
    "updatedByEmail" TEXT,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "RolloutOutcome" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "key" TEXT NOT NULL,
    "groupName" TEXT NOT NULL,
    "policyName" TEXT NOT NULL,
    "revisionId" TEXT NOT NULL,
    "event" TEXT NOT NULL,
    "evidence" TEXT NOT NULL DEFAULT '{}',
    "createdAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE UNIQUE INDEX "RunReport_runId_key" ON "RunReport"("runId");

-- CreateIndex
CREATE INDEX "RunReport_nodeName_startTime_idx" ON "RunReport"("nodeName", "startTime");

-- CreateIndex
CREATE INDEX "RunReport_groupName_policyName_revisionId_endTime_idx" ON "RunReport"("groupName", "policyName", "revisionId", "endTime");

-- CreateIndex
CREATE INDEX "RunReport_endTime_idx" ON "RunReport"("endTime");

-- CreateIndex
CREATE INDEX "RunReport_receivedAt_idx" ON "RunReport"("receivedAt");

-- CreateIndex
CREATE INDEX "NodeRunState_groupName_policyName_idx" ON "NodeRunState"("groupName", "policyName");

-- CreateIndex
CREATE UNIQUE INDEX "StageRolloutRule_groupName_key" ON "StageRolloutRule"("groupName");

-- CreateIndex
CREATE UNIQUE INDEX "RolloutOutcome_key_key" ON "RolloutOutcome"("key");

-- CreateIndex
CREATE INDEX "RolloutOutcome_groupName_policyName_createdAt_idx" ON "RolloutOutcome"("groupName", "policyName", "createdAt");
