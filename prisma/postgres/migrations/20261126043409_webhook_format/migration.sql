-- AlterTable
ALTER TABLE "WebhookSubscription" ADD COLUMN     "format" TEXT NOT NULL DEFAULT 'json';

-- Issue 29: subscriptions that asked for Slack bodies keep them.
UPDATE "WebhookSubscription" SET "format" = 'slack' WHERE "slack" = true;
