-- CreateTable
CREATE TABLE "DataBag" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "itemCount" INTEGER NOT NULL DEFAULT 0,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "DataBagItem" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "bagId" TEXT NOT NULL,
    "itemId" TEXT NOT NULL,
    "document" TEXT NOT NULL,
    "kind" TEXT NOT NULL DEFAULT 'plain',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "DataBagItem_bagId_fkey" FOREIGN KEY ("bagId") REFERENCES "DataBag" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "DataBagStage" (
    "bagId" TEXT NOT NULL,
    "stageName" TEXT NOT NULL,

    PRIMARY KEY ("bagId", "stageName"),
    CONSTRAINT "DataBagStage_bagId_fkey" FOREIGN KEY ("bagId") REFERENCES "DataBag" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "DataBagGrant" (
    "bagId" TEXT NOT NULL,
    "teamId" TEXT NOT NULL,
    "level" TEXT NOT NULL,

    PRIMARY KEY ("bagId", "teamId"),
    CONSTRAINT "DataBagGrant_bagId_fkey" FOREIGN KEY ("bagId") REFERENCES "DataBag" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "DataBagGrant_teamId_fkey" FOREIGN KEY ("teamId") REFERENCES "Team" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "DataBag_name_key" ON "DataBag"("name");

-- CreateIndex
CREATE UNIQUE INDEX "DataBagItem_bagId_itemId_key" ON "DataBagItem"("bagId", "itemId");

-- CreateIndex
CREATE INDEX "DataBagGrant_teamId_idx" ON "DataBagGrant"("teamId");
