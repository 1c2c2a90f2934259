-- CreateTable
CREATE TABLE "Organization" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "fullName" TEXT NOT NULL,
    "homeKey" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "OrgMember" (
    "orgId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,

    PRIMARY KEY ("orgId", "userId"),
    CONSTRAINT "OrgMember_orgId_fkey" FOREIGN KEY ("orgId") REFERENCES "Organization" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "OrgMember_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "ChefGroup" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "orgId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "updatedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "ChefGroup_orgId_fkey" FOREIGN KEY ("orgId") REFERENCES "Organization" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "ChefGroupMember" (
    "groupId" TEXT NOT NULL,
    "member" TEXT NOT NULL,
    "userId" TEXT,
    "clientId" TEXT,
    "childGroupId" TEXT,

    PRIMARY KEY ("groupId", "member"),
    CONSTRAINT "ChefGroupMember_groupId_fkey" FOREIGN KEY ("groupId") REFERENCES "ChefGroup" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "ChefGroupMember_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "ChefGroupMember_clientId_fkey" FOREIGN KEY ("clientId") REFERENCES "ChefClient" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "ChefGroupMember_childGroupId_fkey" FOREIGN KEY ("childGroupId") REFERENCES "ChefGroup" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- Data (issue 23, docs/organizations-design.md step 1): the home organization, named after the default of
-- CHEF_ORG (console), which ensureHomeOrganization() renames to CHEF_ORG at start-up, with the five system
-- groups of Chef. public_key_read_access holds the groups users and clients (the Chef default). Every existing
-- user becomes a member, every existing client belongs to it (below). No quotes or semicolons in these
-- comments: the PostgreSQL engine splits the script on them.
-- (Timestamps written as Prisma writes them on SQLite: ISO 8601 text in UTC.)
INSERT INTO "Organization" ("id", "name", "fullName", "homeKey", "createdAt") VALUES ('org_home', 'console', 'console', 'home', strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now'));
INSERT INTO "ChefGroup" ("id", "orgId", "name", "updatedAt") VALUES
    ('org_home_admins', 'org_home', 'admins', strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')),
    ('org_home_billing_admins', 'org_home', 'billing-admins', strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')),
    ('org_home_users', 'org_home', 'users', strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')),
    ('org_home_clients', 'org_home', 'clients', strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')),
    ('org_home_public_key_read_access', 'org_home', 'public_key_read_access', strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now'));
INSERT INTO "ChefGroupMember" ("groupId", "member", "childGroupId") VALUES
    ('org_home_public_key_read_access', 'group:org_home_users', 'org_home_users'),
    ('org_home_public_key_read_access', 'group:org_home_clients', 'org_home_clients');
INSERT INTO "OrgMember" ("orgId", "userId", "createdAt") SELECT 'org_home', "id", "createdAt" FROM "User";

-- RedefineTables (every existing client joins the home organization)
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_ChefClient" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "validator" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastSeenAt" DATETIME,
    "orgId" TEXT NOT NULL,
    CONSTRAINT "ChefClient_orgId_fkey" FOREIGN KEY ("orgId") REFERENCES "Organization" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_ChefClient" ("createdAt", "id", "lastSeenAt", "name", "validator", "orgId") SELECT "createdAt", "id", "lastSeenAt", "name", "validator", 'org_home' FROM "ChefClient";
DROP TABLE "ChefClient";
ALTER TABLE "new_ChefClient" RENAME TO "ChefClient";
CREATE UNIQUE INDEX "ChefClient_name_key" ON "ChefClient"("name");
CREATE INDEX "ChefClient_orgId_idx" ON "ChefClient"("orgId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE UNIQUE INDEX "Organization_name_key" ON "Organization"("name");

-- CreateIndex
CREATE UNIQUE INDEX "Organization_homeKey_key" ON "Organization"("homeKey");

-- CreateIndex
CREATE INDEX "OrgMember_userId_idx" ON "OrgMember"("userId");

-- CreateIndex
CREATE UNIQUE INDEX "ChefGroup_orgId_name_key" ON "ChefGroup"("orgId", "name");

-- CreateIndex
CREATE INDEX "ChefGroupMember_userId_idx" ON "ChefGroupMember"("userId");

-- CreateIndex
CREATE INDEX "ChefGroupMember_clientId_idx" ON "ChefGroupMember"("clientId");

-- CreateIndex
CREATE INDEX "ChefGroupMember_childGroupId_idx" ON "ChefGroupMember"("childGroupId");
