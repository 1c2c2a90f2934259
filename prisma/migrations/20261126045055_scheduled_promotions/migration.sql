-- CreateTable
CREATE TABLE "ScheduledPromotion" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "groupName" TEXT NOT NULL,
    "policyName" TEXT NOT NULL,
    "fromStage" TEXT,
    "toRevisionId" TEXT NOT NULL,
    "expectedRevisionId" TEXT,
    "mode" TEXT NOT NULL,
    "runAt" DATETIME NOT NULL,
    "reason" TEXT,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "outcome" TEXT,
    "createdById" TEXT,
    "createdByEmail" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "decidedAt" DATETIME
);

-- CreateIndex
CREATE INDEX "ScheduledPromotion_status_runAt_idx" ON "ScheduledPromotion"("status", "runAt");

-- CreateIndex
CREATE INDEX "ScheduledPromotion_groupName_policyName_idx" ON "ScheduledPromotion"("groupName", "policyName");
