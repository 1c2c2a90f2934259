-- CreateTable
CREATE TABLE "StageProtection" (
    "groupId" TEXT NOT NULL PRIMARY KEY,
    "approvalsRequired" INTEGER NOT NULL DEFAULT 1,
    "rules" TEXT NOT NULL DEFAULT '[]',
    "updatedById" TEXT,
    "updatedByEmail" TEXT,
    "updatedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "StageProtection_groupId_fkey" FOREIGN KEY ("groupId") REFERENCES "PolicyGroup" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "StageApprover" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "groupId" TEXT NOT NULL,
    "principal" TEXT NOT NULL,
    "userId" TEXT,
    "teamId" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "StageApprover_groupId_fkey" FOREIGN KEY ("groupId") REFERENCES "PolicyGroup" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "StageApprover_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "StageApprover_teamId_fkey" FOREIGN KEY ("teamId") REFERENCES "Team" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "PromotionRequest" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "groupId" TEXT NOT NULL,
    "policyId" TEXT NOT NULL,
    "groupName" TEXT NOT NULL,
    "policyName" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "fromRevisionId" TEXT,
    "toRevisionId" TEXT,
    "toRevisionPk" TEXT,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "approvalsRequired" INTEGER NOT NULL,
    "reasons" TEXT NOT NULL DEFAULT '[]',
    "diffSummary" TEXT NOT NULL DEFAULT '{}',
    "blastRadius" TEXT NOT NULL DEFAULT '{}',
    "origin" TEXT NOT NULL DEFAULT '{}',
    "reason" TEXT,
    "artifactsOverride" TEXT,
    "freezeOverride" TEXT,
    "requesterId" TEXT,
    "requesterEmail" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" DATETIME NOT NULL,
    "decidedAt" DATETIME,
    "decidedByEmail" TEXT,
    "appliedAuditId" TEXT,
    CONSTRAINT "PromotionRequest_groupId_fkey" FOREIGN KEY ("groupId") REFERENCES "PolicyGroup" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "PromotionRequest_policyId_fkey" FOREIGN KEY ("policyId") REFERENCES "Policy" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "PromotionApproval" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "requestId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "userEmail" TEXT NOT NULL,
    "decision" TEXT NOT NULL,
    "comment" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "PromotionApproval_requestId_fkey" FOREIGN KEY ("requestId") REFERENCES "PromotionRequest" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "FreezeWindow" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "groupId" TEXT NOT NULL,
    "startsAt" DATETIME NOT NULL,
    "endsAt" DATETIME NOT NULL,
    "weekly" BOOLEAN NOT NULL DEFAULT false,
    "reason" TEXT NOT NULL,
    "createdById" TEXT,
    "createdByEmail" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "FreezeWindow_groupId_fkey" FOREIGN KEY ("groupId") REFERENCES "PolicyGroup" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "BadRevision" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "policyId" TEXT NOT NULL,
    "policyName" TEXT NOT NULL,
    "revisionId" TEXT NOT NULL,
    "revisionPk" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "markedById" TEXT,
    "markedByEmail" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "BadRevision_policyId_fkey" FOREIGN KEY ("policyId") REFERENCES "Policy" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "WebhookSubscription" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "events" TEXT NOT NULL,
    "secretEnc" TEXT NOT NULL,
    "slack" BOOLEAN NOT NULL DEFAULT false,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "createdById" TEXT,
    "createdByEmail" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "WebhookDelivery" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "subscriptionId" TEXT NOT NULL,
    "event" TEXT NOT NULL,
    "payload" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lockedUntil" DATETIME,
    "lockedBy" TEXT,
    "lastStatusCode" INTEGER,
    "lastError" TEXT,
    "deliveredAt" DATETIME,
    "dedupeKey" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "WebhookDelivery_subscriptionId_fkey" FOREIGN KEY ("subscriptionId") REFERENCES "WebhookSubscription" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "WebhookAttempt" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "deliveryId" TEXT NOT NULL,
    "subscriptionId" TEXT NOT NULL,
    "attempt" INTEGER NOT NULL,
    "statusCode" INTEGER,
    "error" TEXT,
    "durationMs" INTEGER NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "WebhookAttempt_deliveryId_fkey" FOREIGN KEY ("deliveryId") REFERENCES "WebhookDelivery" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "StageApprover_userId_idx" ON "StageApprover"("userId");

-- CreateIndex
CREATE INDEX "StageApprover_teamId_idx" ON "StageApprover"("teamId");

-- CreateIndex
CREATE UNIQUE INDEX "StageApprover_groupId_principal_key" ON "StageApprover"("groupId", "principal");

-- CreateIndex
CREATE INDEX "PromotionRequest_groupId_status_idx" ON "PromotionRequest"("groupId", "status");

-- CreateIndex
CREATE INDEX "PromotionRequest_policyId_status_idx" ON "PromotionRequest"("policyId", "status");

-- CreateIndex
CREATE INDEX "PromotionRequest_status_createdAt_idx" ON "PromotionRequest"("status", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "PromotionApproval_requestId_userId_key" ON "PromotionApproval"("requestId", "userId");

-- CreateIndex
CREATE INDEX "FreezeWindow_groupId_idx" ON "FreezeWindow"("groupId");

-- CreateIndex
CREATE UNIQUE INDEX "BadRevision_revisionPk_key" ON "BadRevision"("revisionPk");

-- CreateIndex
CREATE INDEX "BadRevision_policyId_idx" ON "BadRevision"("policyId");

-- CreateIndex
CREATE UNIQUE INDEX "WebhookDelivery_dedupeKey_key" ON "WebhookDelivery"("dedupeKey");

-- CreateIndex
CREATE INDEX "WebhookDelivery_status_nextAttemptAt_idx" ON "WebhookDelivery"("status", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "WebhookDelivery_subscriptionId_createdAt_idx" ON "WebhookDelivery"("subscriptionId", "createdAt");

-- CreateIndex
CREATE INDEX "WebhookAttempt_subscriptionId_createdAt_idx" ON "WebhookAttempt"("subscriptionId", "createdAt");
