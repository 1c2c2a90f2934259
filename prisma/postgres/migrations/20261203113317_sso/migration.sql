-- CreateTable
CREATE TABLE "TeamIdpGroup" (
    "teamId" TEXT NOT NULL,
    "group" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "TeamIdpGroup_pkey" PRIMARY KEY ("teamId","group")
);

-- CreateTable
CREATE TABLE "OidcIdentity" (
    "id" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "issuer" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "linkedBy" TEXT NOT NULL,
    "email" TEXT,
    "groups" TEXT NOT NULL DEFAULT '[]',
    "refreshToken" TEXT,
    "adminFromGroups" BOOLEAN NOT NULL DEFAULT false,
    "status" TEXT NOT NULL DEFAULT 'active',
    "syncedAt" TIMESTAMP(3) NOT NULL,
    "refreshingUntil" TIMESTAMP(3),
    "lastSignInAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "OidcIdentity_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "TeamIdpGroup_group_idx" ON "TeamIdpGroup"("group");

-- CreateIndex
CREATE UNIQUE INDEX "OidcIdentity_userId_key" ON "OidcIdentity"("userId");

-- CreateIndex
CREATE UNIQUE INDEX "OidcIdentity_issuer_subject_key" ON "OidcIdentity"("issuer", "subject");

-- AddForeignKey
ALTER TABLE "TeamIdpGroup" ADD CONSTRAINT "TeamIdpGroup_teamId_fkey" FOREIGN KEY ("teamId") REFERENCES "Team"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "OidcIdentity" ADD CONSTRAINT "OidcIdentity_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;
