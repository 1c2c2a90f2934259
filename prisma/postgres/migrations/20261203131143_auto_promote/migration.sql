-- AlterTable
ALTER TABLE "StageRolloutRule" ADD COLUMN     "autoPromoteEnabled" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "autoPromoteSoakMinutes" INTEGER,
ADD COLUMN     "autoWaiting" TEXT NOT NULL DEFAULT '{}',
ADD COLUMN     "gateChecks" TEXT NOT NULL DEFAULT '[]',
ADD COLUMN     "heldAt" TIMESTAMP(3),
ADD COLUMN     "heldByEmail" TEXT,
ADD COLUMN     "heldReason" TEXT,
ADD COLUMN     "heldSource" TEXT;

-- CreateTable
CREATE TABLE "AutomationEvent" (
    "id" TEXT NOT NULL,
    "key" TEXT,
    "groupName" TEXT NOT NULL,
    "policyName" TEXT,
    "revisionId" TEXT,
    "kind" TEXT NOT NULL,
    "summary" TEXT NOT NULL,
    "actorEmail" TEXT NOT NULL,
    "evidence" TEXT NOT NULL DEFAULT '{}',
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "AutomationEvent_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "CheckEvaluation" (
    "id" TEXT NOT NULL,
    "groupName" TEXT NOT NULL,
    "policyName" TEXT NOT NULL,
    "revisionId" TEXT NOT NULL,
    "checkName" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "result" TEXT NOT NULL,
    "value" DOUBLE PRECISION,
    "detail" TEXT NOT NULL,
    "durationMs" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "CheckEvaluation_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "AutomationEvent_key_key" ON "AutomationEvent"("key");

-- CreateIndex
CREATE INDEX "AutomationEvent_groupName_policyName_createdAt_idx" ON "AutomationEvent"("groupName", "policyName", "createdAt");

-- CreateIndex
CREATE INDEX "CheckEvaluation_groupName_policyName_revisionId_checkName_c_idx" ON "CheckEvaluation"("groupName", "policyName", "revisionId", "checkName", "createdAt");

-- CreateIndex
CREATE INDEX "CheckEvaluation_createdAt_idx" ON "CheckEvaluation"("createdAt");
