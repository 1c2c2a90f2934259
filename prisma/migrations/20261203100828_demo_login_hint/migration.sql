-- AlterTable
ALTER TABLE "OrgSetting" ADD COLUMN "demoPasswordHash" TEXT;
