-- CreateTable
CREATE TABLE "RingRollout" (
    "id" TEXT NOT NULL,
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
    "percent" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "status" TEXT NOT NULL,
    "openKey" TEXT,
    "gateOnConvergence" BOOLEAN NOT NULL DEFAULT false,
    "soakMinutes" INTEGER,
    "requestId" TEXT,
    "approvedBy" TEXT,
    "reason" TEXT,
    "stepStartedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "createdById" TEXT,
    "createdByEmail" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "endedAt" TIMESTAMP(3),
    "endReason" TEXT,

    CONSTRAINT "RingRollout_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "RingNode" (
    "rolloutId" TEXT NOT NULL,
    "nodeName" TEXT NOT NULL,

    CONSTRAINT "RingNode_pkey" PRIMARY KEY ("rolloutId","nodeName")
);

-- CreateIndex
CREATE UNIQUE INDEX "RingRollout_openKey_key" ON "RingRollout"("openKey");

-- CreateIndex
CREATE INDEX "RingRollout_groupId_policyId_status_idx" ON "RingRollout"("groupId", "policyId", "status");

-- CreateIndex
CREATE INDEX "RingRollout_status_idx" ON "RingRollout"("status");

-- AddForeignKey
ALTER TABLE "RingNode" ADD CONSTRAINT "RingNode_rolloutId_fkey" FOREIGN KEY ("rolloutId") REFERENCES "RingRollout"("id") ON DELETE CASCADE ON UPDATE CASCADE;
