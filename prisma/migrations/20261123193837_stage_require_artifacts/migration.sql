-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_PolicyGroup" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "position" INTEGER NOT NULL DEFAULT 0,
    "description" TEXT NOT NULL DEFAULT '',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "requireArtifacts" BOOLEAN NOT NULL DEFAULT false
);
INSERT INTO "new_PolicyGroup" ("createdAt", "description", "id", "name", "position") SELECT "createdAt", "description", "id", "name", "position" FROM "PolicyGroup";
DROP TABLE "PolicyGroup";
ALTER TABLE "new_PolicyGroup" RENAME TO "PolicyGroup";
CREATE UNIQUE INDEX "PolicyGroup_name_key" ON "PolicyGroup"("name");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
