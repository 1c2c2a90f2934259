
-- CreateTable
CREATE TABLE "Organization" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "fullName" TEXT NOT NULL,
    "homeKey" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Organization_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "OrgMember" (
    "orgId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "OrgMember_pkey" PRIMARY KEY ("orgId","userId")
);

-- CreateTable
CREATE TABLE "ChefGroup" (
    "id" TEXT NOT NULL,
    "orgId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ChefGroup_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ChefGroupMember" (
    "groupId" TEXT NOT NULL,
    "member" TEXT NOT NULL,
    "userId" TEXT,
    "clientId" TEXT,
    "childGroupId" TEXT,

    CONSTRAINT "ChefGroupMember_pkey" PRIMARY KEY ("groupId","member")
);

-- Data (issue 23, docs/organizations-design.md step 1): the home organization, named after the default of
-- CHEF_ORG (console), which ensureHomeOrganization() renames to CHEF_ORG at start-up, with the five system
-- groups of Chef. public_key_read_access holds the groups users and clients (the Chef default). Every existing
-- user becomes a member, every existing client belongs to it (below). No quotes or semicolons in these
-- comments: the PostgreSQL engine splits the script on them.
INSERT INTO "Organization" ("id", "name", "fullName", "homeKey") VALUES ('org_home', 'console', 'console', 'home');
INSERT INTO "ChefGroup" ("id", "orgId", "name") VALUES
    ('org_home_admins', 'org_home', 'admins'),
    ('org_home_billing_admins', 'org_home', 'billing-admins'),
    ('org_home_users', 'org_home', 'users'),
    ('org_home_clients', 'org_home', 'clients'),
    ('org_home_public_key_read_access', 'org_home', 'public_key_read_access');
INSERT INTO "ChefGroupMember" ("groupId", "member", "childGroupId") VALUES
    ('org_home_public_key_read_access', 'group:org_home_users', 'org_home_users'),
    ('org_home_public_key_read_access', 'group:org_home_clients', 'org_home_clients');
INSERT INTO "OrgMember" ("orgId", "userId", "createdAt") SELECT 'org_home', "id", "createdAt" FROM "User";

-- AlterTable: every existing client joins the home organization (a default only while the column is added)
ALTER TABLE "ChefClient" ADD COLUMN "orgId" TEXT NOT NULL DEFAULT 'org_home';
ALTER TABLE "ChefClient" ALTER COLUMN "orgId" DROP DEFAULT;

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

-- CreateIndex
CREATE INDEX "ChefClient_orgId_idx" ON "ChefClient"("orgId");

-- AddForeignKey
ALTER TABLE "ChefClient" ADD CONSTRAINT "ChefClient_orgId_fkey" FOREIGN KEY ("orgId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "OrgMember" ADD CONSTRAINT "OrgMember_orgId_fkey" FOREIGN KEY ("orgId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "OrgMember" ADD CONSTRAINT "OrgMember_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ChefGroup" ADD CONSTRAINT "ChefGroup_orgId_fkey" FOREIGN KEY ("orgId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ChefGroupMember" ADD CONSTRAINT "ChefGroupMember_groupId_fkey" FOREIGN KEY ("groupId") REFERENCES "ChefGroup"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ChefGroupMember" ADD CONSTRAINT "ChefGroupMember_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ChefGroupMember" ADD CONSTRAINT "ChefGroupMember_clientId_fkey" FOREIGN KEY ("clientId") REFERENCES "ChefClient"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ChefGroupMember" ADD CONSTRAINT "ChefGroupMember_childGroupId_fkey" FOREIGN KEY ("childGroupId") REFERENCES "ChefGroup"("id") ON DELETE CASCADE ON UPDATE CASCADE;
