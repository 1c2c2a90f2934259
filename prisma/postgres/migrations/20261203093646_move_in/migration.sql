-- AlterTable
ALTER TABLE "User" ADD COLUMN     "firstName" TEXT,
ADD COLUMN     "lastName" TEXT,
ADD COLUMN     "origin" TEXT;

-- CreateTable
CREATE TABLE "SetupCode" (
    "id" TEXT NOT NULL,
    "codeHash" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "claimedAt" TIMESTAMP(3),

    CONSTRAINT "SetupCode_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AdminBootstrap" (
    "id" TEXT NOT NULL DEFAULT 'install',
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "by" TEXT,

    CONSTRAINT "AdminBootstrap_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ImportedObject" (
    "kind" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "sourceHash" TEXT NOT NULL,
    "consoleHash" TEXT NOT NULL,
    "created" BOOLEAN NOT NULL DEFAULT false,
    "runId" TEXT NOT NULL,
    "importedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ImportedObject_pkey" PRIMARY KEY ("kind","name")
);

-- CreateIndex
CREATE UNIQUE INDEX "SetupCode_codeHash_key" ON "SetupCode"("codeHash");
