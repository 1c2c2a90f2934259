-- CreateTable
CREATE TABLE "CookbookFile" (
    "checksum" TEXT NOT NULL PRIMARY KEY,
    "size" INTEGER NOT NULL,
    "content" BLOB NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "Sandbox" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "checksums" TEXT NOT NULL,
    "completed" BOOLEAN NOT NULL DEFAULT false,
    "createdById" TEXT,
    "createdBy" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "CookbookArtifact" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "identifier" TEXT NOT NULL,
    "version" TEXT NOT NULL,
    "manifest" TEXT NOT NULL,
    "createdById" TEXT,
    "createdBy" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE INDEX "CookbookArtifact_identifier_idx" ON "CookbookArtifact"("identifier");

-- CreateIndex
CREATE UNIQUE INDEX "CookbookArtifact_name_identifier_key" ON "CookbookArtifact"("name", "identifier");
