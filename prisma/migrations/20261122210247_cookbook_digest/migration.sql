-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_PolicyRevision" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "policyId" TEXT NOT NULL,
    "revisionId" TEXT NOT NULL,
    "document" TEXT NOT NULL,
    "contentHash" TEXT NOT NULL,
    "computedRevisionId" TEXT NOT NULL,
    "runList" TEXT NOT NULL DEFAULT '[]',
    "cookbookCount" INTEGER NOT NULL DEFAULT 0,
    "cookbookDigest" TEXT NOT NULL DEFAULT '',
    "origin" TEXT NOT NULL DEFAULT 'upload',
    "originDetail" TEXT,
    "createdById" TEXT,
    "createdByEmail" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "PolicyRevision_policyId_fkey" FOREIGN KEY ("policyId") REFERENCES "Policy" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_PolicyRevision" ("computedRevisionId", "contentHash", "cookbookCount", "createdAt", "createdByEmail", "createdById", "document", "id", "origin", "originDetail", "policyId", "revisionId", "runList") SELECT "computedRevisionId", "contentHash", "cookbookCount", "createdAt", "createdByEmail", "createdById", "document", "id", "origin", "originDetail", "policyId", "revisionId", "runList" FROM "PolicyRevision";
DROP TABLE "PolicyRevision";
ALTER TABLE "new_PolicyRevision" RENAME TO "PolicyRevision";
CREATE INDEX "PolicyRevision_revisionId_idx" ON "PolicyRevision"("revisionId");
CREATE UNIQUE INDEX "PolicyRevision_policyId_revisionId_key" ON "PolicyRevision"("policyId", "revisionId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
