-- AlterTable
ALTER TABLE "AuditEvent" ADD COLUMN "via" TEXT;

-- AlterTable
ALTER TABLE "Node" ADD COLUMN "chefDocument" TEXT;
ALTER TABLE "Node" ADD COLUMN "reportedGroup" TEXT;
ALTER TABLE "Node" ADD COLUMN "reportedPolicy" TEXT;

-- AlterTable
ALTER TABLE "User" ADD COLUMN "chefName" TEXT;

-- CreateTable
CREATE TABLE "ChefName" (
    "name" TEXT NOT NULL PRIMARY KEY,
    "kind" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "ChefClient" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "validator" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastSeenAt" DATETIME
);

-- CreateTable
CREATE TABLE "ChefKey" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "userId" TEXT,
    "clientId" TEXT,
    "name" TEXT NOT NULL,
    "publicKey" TEXT NOT NULL,
    "expiresAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" DATETIME,
    CONSTRAINT "ChefKey_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "ChefKey_clientId_fkey" FOREIGN KEY ("clientId") REFERENCES "ChefClient" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "ChefClient_name_key" ON "ChefClient"("name");

-- CreateIndex
CREATE INDEX "ChefKey_clientId_idx" ON "ChefKey"("clientId");

-- CreateIndex
CREATE UNIQUE INDEX "ChefKey_userId_name_key" ON "ChefKey"("userId", "name");

-- CreateIndex
CREATE UNIQUE INDEX "ChefKey_clientId_name_key" ON "ChefKey"("clientId", "name");

-- CreateIndex
CREATE UNIQUE INDEX "User_chefName_key" ON "User"("chefName");
