-- DropIndex
DROP INDEX "SearchField_idx_leaf_idx";

-- CreateTable
CREATE TABLE "SearchChunk" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "idx" TEXT NOT NULL,
    "refs" INTEGER NOT NULL
);

-- CreateTable
CREATE TABLE "SearchDocChunk" (
    "docId" TEXT NOT NULL,
    "chunkId" TEXT NOT NULL,

    PRIMARY KEY ("docId", "chunkId"),
    CONSTRAINT "SearchDocChunk_docId_fkey" FOREIGN KEY ("docId") REFERENCES "SearchDoc" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "SearchDocChunk_chunkId_fkey" FOREIGN KEY ("chunkId") REFERENCES "SearchChunk" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- Each document indexed before chunks becomes one chunk of its own ("legacy:" and its id) holding its rows,
-- so searches find it as before, and its next save replaces that chunk with content-addressed ones.
INSERT INTO "SearchChunk" ("id", "idx", "refs") SELECT 'legacy:' || "id", "idx", 1 FROM "SearchDoc";
INSERT INTO "SearchDocChunk" ("docId", "chunkId") SELECT "id", 'legacy:' || "id" FROM "SearchDoc";

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_SearchDoc" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "idx" TEXT NOT NULL,
    "name" TEXT NOT NULL
);
INSERT INTO "new_SearchDoc" ("id", "idx", "name") SELECT "id", "idx", "name" FROM "SearchDoc";
DROP TABLE "SearchDoc";
ALTER TABLE "new_SearchDoc" RENAME TO "SearchDoc";
CREATE UNIQUE INDEX "SearchDoc_idx_name_key" ON "SearchDoc"("idx", "name");
CREATE TABLE "new_SearchEntry" (
    "chunkId" TEXT NOT NULL,
    "idx" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "value" TEXT NOT NULL,

    PRIMARY KEY ("chunkId", "path", "value"),
    CONSTRAINT "SearchEntry_chunkId_fkey" FOREIGN KEY ("chunkId") REFERENCES "SearchChunk" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_SearchEntry" ("chunkId", "idx", "path", "value") SELECT 'legacy:' || "docId", "idx", "path", "value" FROM "SearchEntry";
DROP TABLE "SearchEntry";
ALTER TABLE "new_SearchEntry" RENAME TO "SearchEntry";
CREATE INDEX "SearchEntry_idx_path_value_chunkId_idx" ON "SearchEntry"("idx", "path", "value", "chunkId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "SearchDocChunk_chunkId_docId_idx" ON "SearchDocChunk"("chunkId", "docId");

-- CreateIndex
CREATE INDEX "SearchField_idx_leaf_path_idx" ON "SearchField"("idx", "leaf", "path");
