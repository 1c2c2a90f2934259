-- DropIndex
DROP INDEX "ChefClient_orgId_idx";

-- DropIndex
DROP INDEX "ChefClient_name_key";

-- AlterTable
ALTER TABLE "ChefClient" ADD COLUMN "enrollStage" TEXT;

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_ChefName" (
    "name" TEXT NOT NULL,
    "scope" TEXT NOT NULL DEFAULT '',
    "kind" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,

    PRIMARY KEY ("scope", "name")
);
INSERT INTO "new_ChefName" ("createdAt", "kind", "name") SELECT "createdAt", "kind", "name" FROM "ChefName";
DROP TABLE "ChefName";
ALTER TABLE "new_ChefName" RENAME TO "ChefName";
CREATE INDEX "ChefName_name_idx" ON "ChefName"("name");
CREATE TABLE "new_PolicyGroup" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "position" INTEGER NOT NULL DEFAULT 0,
    "description" TEXT NOT NULL DEFAULT '',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "requireArtifacts" BOOLEAN NOT NULL DEFAULT false,
    "openEnrollment" BOOLEAN NOT NULL DEFAULT false
);
INSERT INTO "new_PolicyGroup" ("createdAt", "description", "id", "name", "position", "requireArtifacts") SELECT "createdAt", "description", "id", "name", "position", "requireArtifacts" FROM "PolicyGroup";
DROP TABLE "PolicyGroup";
ALTER TABLE "new_PolicyGroup" RENAME TO "PolicyGroup";
CREATE UNIQUE INDEX "PolicyGroup_name_key" ON "PolicyGroup"("name");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "ChefClient_name_idx" ON "ChefClient"("name");

-- CreateIndex
CREATE UNIQUE INDEX "ChefClient_orgId_name_key" ON "ChefClient"("orgId", "name");

-- Issue 41 (docs/stage-binding.md): a client's name is claimed within its organization.
UPDATE "ChefName" SET "scope" = COALESCE((SELECT c."orgId" FROM "ChefClient" c WHERE c."name" = "ChefName"."name"), 'org_home') WHERE "kind" = 'client';

-- Issue 41: stages that exist keep enrolling nodes through the plain validator, unless they are guarded
-- (protected stages close), and a stage made from now on starts closed.
UPDATE "PolicyGroup" SET "openEnrollment" = 1 WHERE "id" NOT IN (SELECT "groupId" FROM "StageProtection");
