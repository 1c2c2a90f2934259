-- DropIndex
DROP INDEX "SearchField_idx_leaf_idx";

-- DropForeignKey
ALTER TABLE "SearchEntry" DROP CONSTRAINT "SearchEntry_docId_fkey";

-- DropIndex
DROP INDEX "SearchEntry_idx_path_value_idx";

-- AlterTable
ALTER TABLE "SearchDoc" DROP COLUMN "digest";

-- CreateTable
CREATE TABLE "SearchChunk" (
    "id" TEXT NOT NULL,
    "idx" TEXT NOT NULL,
    "refs" INTEGER NOT NULL,

    CONSTRAINT "SearchChunk_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SearchDocChunk" (
    "docId" TEXT NOT NULL,
    "chunkId" TEXT NOT NULL,

    CONSTRAINT "SearchDocChunk_pkey" PRIMARY KEY ("docId","chunkId")
);

-- Each document indexed before chunks becomes one chunk of its own ("legacy:" and its id) holding its rows,
-- so searches find it as before, and its next save replaces that chunk with content-addressed ones.
INSERT INTO "SearchChunk" ("id", "idx", "refs") SELECT 'legacy:' || "id", "idx", 1 FROM "SearchDoc";
INSERT INTO "SearchDocChunk" ("docId", "chunkId") SELECT "id", 'legacy:' || "id" FROM "SearchDoc";

-- AlterTable
ALTER TABLE "SearchEntry" ADD COLUMN "chunkId" TEXT;
UPDATE "SearchEntry" SET "chunkId" = 'legacy:' || "docId";
ALTER TABLE "SearchEntry" ALTER COLUMN "chunkId" SET NOT NULL,
DROP CONSTRAINT "SearchEntry_pkey",
DROP COLUMN "docId",
ADD CONSTRAINT "SearchEntry_pkey" PRIMARY KEY ("chunkId", "path", "value");

-- CreateIndex
CREATE INDEX "SearchDocChunk_chunkId_docId_idx" ON "SearchDocChunk"("chunkId", "docId");

-- CreateIndex
CREATE INDEX "SearchEntry_idx_path_value_chunkId_idx" ON "SearchEntry"("idx", "path", "value", "chunkId");

-- AddForeignKey
ALTER TABLE "SearchDocChunk" ADD CONSTRAINT "SearchDocChunk_docId_fkey" FOREIGN KEY ("docId") REFERENCES "SearchDoc"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SearchDocChunk" ADD CONSTRAINT "SearchDocChunk_chunkId_fkey" FOREIGN KEY ("chunkId") REFERENCES "SearchChunk"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SearchEntry" ADD CONSTRAINT "SearchEntry_chunkId_fkey" FOREIGN KEY ("chunkId") REFERENCES "SearchChunk"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- CreateIndex
CREATE INDEX "SearchField_idx_leaf_path_idx" ON "SearchField"("idx", "leaf", "path");
