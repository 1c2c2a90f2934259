-- CreateTable
CREATE TABLE "StoredFile" (
    "checksum" TEXT NOT NULL,
    "size" INTEGER NOT NULL,
    "store" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 0,
    "touchedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "StoredFile_pkey" PRIMARY KEY ("checksum")
);

-- CreateIndex
CREATE INDEX "StoredFile_state_touchedAt_idx" ON "StoredFile"("state", "touchedAt");

-- CreateIndex
CREATE INDEX "StoredFile_store_checksum_idx" ON "StoredFile"("store", "checksum");

-- Issue 46: every file stored so far is in the database store, stored (no bytes are copied).
INSERT INTO "StoredFile" ("checksum", "size", "store", "state", "version", "touchedAt", "createdAt")
SELECT "checksum", "size", 'db', 'stored', 0, "createdAt", "createdAt" FROM "CookbookFile";
