-- AlterTable
ALTER TABLE "Node" ADD COLUMN     "registeredByClient" TEXT;

-- AlterTable
ALTER TABLE "WebhookSubscription" ADD COLUMN     "allowPrivateTargets" BOOLEAN NOT NULL DEFAULT false;
