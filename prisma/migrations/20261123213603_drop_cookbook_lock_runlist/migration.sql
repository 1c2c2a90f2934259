-- Issue 10: per-revision CookbookLock rows and PolicyRevision.runList go (nothing reads them).
-- Revisions stored before cookbookDigest existed get theirs from their CookbookLock rows first,
-- so the board's fallback to those rows is no longer needed.
UPDATE "PolicyRevision"
SET "cookbookDigest" = (
    SELECT json_group_object("name", "version" || '|' || "identifier")
    FROM "CookbookLock" WHERE "CookbookLock"."revisionPk" = "PolicyRevision"."id"
)
WHERE "cookbookDigest" = '';

-- DropIndex
DROP INDEX "CookbookLock_name_version_idx";

-- DropIndex
DROP INDEX "CookbookLock_revisionPk_idx";

-- DropTable
PRAGMA foreign_keys=off;
DROP TABLE "CookbookLock";
PRAGMA foreign_keys=on;

-- A column drop, not a table rebuild (SQLite 3.35+): other migrations may rebuild PolicyRevision in parallel.
ALTER TABLE "PolicyRevision" DROP COLUMN "runList";
