-- AlterTable
ALTER TABLE "User" ADD COLUMN "firstName" TEXT;
ALTER TABLE "User" ADD COLUMN "lastName" TEXT;
ALTER TABLE "User" ADD COLUMN "origin" TEXT;

-- CreateTable
CREATE TABLE "SetupCode" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "codeHash" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" DATETIME NOT NULL,
    "claimedAt" DATETIME
);

-- CreateTable
CREATE TABLE "AdminBootstrap" (
    "id" TEXT NOT NULL PRIMARY KEY DEFAULT 'install',
    "updatedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "by" TEXT
);

-- CreateTable
CREATE TABLE "ImportedObject" (
    "kind" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "sourceHash" TEXT NOT NULL,
    "consoleHash" TEXT NOT NULL,
    "created" BOOLEAN NOT NULL DEFAULT false,
    "runId" TEXT NOT NULL,
    "importedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,

    PRIMARY KEY ("kind", "name")
);

-- CreateIndex
CREATE UNIQUE INDEX "SetupCode_codeHash_key" ON "SetupCode"("codeHash");
