-- DropIndex
DROP INDEX "ChefClient_name_key";

-- DropIndex
DROP INDEX "ChefClient_orgId_idx";

-- AlterTable
ALTER TABLE "ChefClient" ADD COLUMN     "enrollStage" TEXT;

-- AlterTable
ALTER TABLE "ChefName" DROP CONSTRAINT "ChefName_pkey",
ADD COLUMN     "scope" TEXT NOT NULL DEFAULT '',
ADD CONSTRAINT "ChefName_pkey" PRIMARY KEY ("scope", "name");

-- AlterTable
ALTER TABLE "PolicyGroup" ADD COLUMN     "openEnrollment" BOOLEAN NOT NULL DEFAULT false;

-- CreateIndex
CREATE INDEX "ChefClient_name_idx" ON "ChefClient"("name");

-- CreateIndex
CREATE UNIQUE INDEX "ChefClient_orgId_name_key" ON "ChefClient"("orgId", "name");

-- CreateIndex
CREATE INDEX "ChefName_name_idx" ON "ChefName"("name");

-- Issue 41 (docs/stage-binding.md): a client's name is claimed within its organization.
UPDATE "ChefName" SET "scope" = COALESCE((SELECT c."orgId" FROM "ChefClient" c WHERE c."name" = "ChefName"."name"), 'org_home') WHERE "kind" = 'client';

-- Issue 41: stages that exist keep enrolling nodes through the plain validator, unless they are guarded
-- (protected stages close), and a stage made from now on starts closed.
UPDATE "PolicyGroup" SET "openEnrollment" = true WHERE "id" NOT IN (SELECT "groupId" FROM "StageProtection");
