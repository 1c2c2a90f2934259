-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_WebhookSubscription" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "events" TEXT NOT NULL,
    "secretEnc" TEXT NOT NULL,
    "slack" BOOLEAN NOT NULL DEFAULT false,
    "format" TEXT NOT NULL DEFAULT 'json',
    "allowPrivateTargets" BOOLEAN NOT NULL DEFAULT false,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "createdById" TEXT,
    "createdByEmail" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
INSERT INTO "new_WebhookSubscription" ("active", "allowPrivateTargets", "createdAt", "createdByEmail", "createdById", "events", "id", "name", "secretEnc", "slack", "url") SELECT "active", "allowPrivateTargets", "createdAt", "createdByEmail", "createdById", "events", "id", "name", "secretEnc", "slack", "url" FROM "WebhookSubscription";
DROP TABLE "WebhookSubscription";
ALTER TABLE "new_WebhookSubscription" RENAME TO "WebhookSubscription";
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- Issue 29: subscriptions that asked for Slack bodies keep them.
UPDATE "WebhookSubscription" SET "format" = 'slack' WHERE "slack" = true;
