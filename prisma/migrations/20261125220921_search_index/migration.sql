-- CreateTable
CREATE TABLE "SearchDoc" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "idx" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "digest" TEXT NOT NULL DEFAULT ''
);

-- CreateTable
CREATE TABLE "SearchEntry" (
    "docId" TEXT NOT NULL,
    "idx" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "value" TEXT NOT NULL,

    PRIMARY KEY ("docId", "path", "value"),
    CONSTRAINT "SearchEntry_docId_fkey" FOREIGN KEY ("docId") REFERENCES "SearchDoc" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "SearchField" (
    "idx" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "leaf" TEXT NOT NULL,

    PRIMARY KEY ("idx", "path", "leaf")
);

-- CreateTable
CREATE TABLE "SavedSearch" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "userId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "query" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE UNIQUE INDEX "SearchDoc_idx_name_key" ON "SearchDoc"("idx", "name");

-- CreateIndex
CREATE INDEX "SearchEntry_idx_path_value_idx" ON "SearchEntry"("idx", "path", "value");

-- CreateIndex
CREATE INDEX "SearchField_idx_leaf_idx" ON "SearchField"("idx", "leaf");

-- CreateIndex
CREATE UNIQUE INDEX "SavedSearch_userId_name_key" ON "SavedSearch"("userId", "name");
