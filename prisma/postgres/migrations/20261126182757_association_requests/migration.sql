-- CreateTable
CREATE TABLE "AssociationRequest" (
    "id" TEXT NOT NULL,
    "orgId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "inviterId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AssociationRequest_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "AssociationRequest_userId_idx" ON "AssociationRequest"("userId");

-- CreateIndex
CREATE INDEX "AssociationRequest_inviterId_idx" ON "AssociationRequest"("inviterId");

-- CreateIndex
CREATE UNIQUE INDEX "AssociationRequest_orgId_userId_key" ON "AssociationRequest"("orgId", "userId");

-- AddForeignKey
ALTER TABLE "AssociationRequest" ADD CONSTRAINT "AssociationRequest_orgId_fkey" FOREIGN KEY ("orgId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AssociationRequest" ADD CONSTRAINT "AssociationRequest_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AssociationRequest" ADD CONSTRAINT "AssociationRequest_inviterId_fkey" FOREIGN KEY ("inviterId") REFERENCES "User"("id") ON DELETE SET NULL ON UPDATE CASCADE;
