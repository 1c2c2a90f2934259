-- CreateTable
CREATE TABLE "ScheduledPromotion" (
    "id" TEXT NOT NULL,
    "groupName" TEXT NOT NULL,
    "policyName" TEXT NOT NULL,
    "fromStage" TEXT,
    "toRevisionId" TEXT NOT NULL,
    "expectedRevisionId" TEXT,
    "mode" TEXT NOT NULL,
    "runAt" TIMESTAMP(3) NOT NULL,
    "reason" TEXT,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "outcome" TEXT,
    "createdById" TEXT,
    "createdByEmail" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "decidedAt" TIMESTAMP(3),

    CONSTRAINT "ScheduledPromotion_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "ScheduledPromotion_status_runAt_idx" ON "ScheduledPromotion"("status", "runAt");

-- CreateIndex
CREATE INDEX "ScheduledPromotion_groupName_policyName_idx" ON "ScheduledPromotion"("groupName", "policyName");
