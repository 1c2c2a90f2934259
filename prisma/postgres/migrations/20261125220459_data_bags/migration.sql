-- CreateTable
CREATE TABLE "DataBag" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "itemCount" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "DataBag_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "DataBagItem" (
    "id" TEXT NOT NULL,
    "bagId" TEXT NOT NULL,
    "itemId" TEXT NOT NULL,
    "document" TEXT NOT NULL,
    "kind" TEXT NOT NULL DEFAULT 'plain',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "DataBagItem_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "DataBagStage" (
    "bagId" TEXT NOT NULL,
    "stageName" TEXT NOT NULL,

    CONSTRAINT "DataBagStage_pkey" PRIMARY KEY ("bagId","stageName")
);

-- CreateTable
CREATE TABLE "DataBagGrant" (
    "bagId" TEXT NOT NULL,
    "teamId" TEXT NOT NULL,
    "level" TEXT NOT NULL,

    CONSTRAINT "DataBagGrant_pkey" PRIMARY KEY ("bagId","teamId")
);

-- CreateIndex
CREATE UNIQUE INDEX "DataBag_name_key" ON "DataBag"("name");

-- CreateIndex
CREATE UNIQUE INDEX "DataBagItem_bagId_itemId_key" ON "DataBagItem"("bagId", "itemId");

-- CreateIndex
CREATE INDEX "DataBagGrant_teamId_idx" ON "DataBagGrant"("teamId");

-- AddForeignKey
ALTER TABLE "DataBagItem" ADD CONSTRAINT "DataBagItem_bagId_fkey" FOREIGN KEY ("bagId") REFERENCES "DataBag"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "DataBagStage" ADD CONSTRAINT "DataBagStage_bagId_fkey" FOREIGN KEY ("bagId") REFERENCES "DataBag"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "DataBagGrant" ADD CONSTRAINT "DataBagGrant_bagId_fkey" FOREIGN KEY ("bagId") REFERENCES "DataBag"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "DataBagGrant" ADD CONSTRAINT "DataBagGrant_teamId_fkey" FOREIGN KEY ("teamId") REFERENCES "Team"("id") ON DELETE CASCADE ON UPDATE CASCADE;
