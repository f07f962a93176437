-- The history at a million runs: the newest-first order and the figure sorts served by an index (the id is the
-- tie-break), the total kept by triggers, and a trigram index for the text search.

-- DropIndex
DROP INDEX "Run_sortAt_idx";

-- DropIndex
DROP INDEX "Run_singleStreamTokS_idx";

-- DropIndex
DROP INDEX "Run_peakTokS_idx";

-- CreateIndex
CREATE INDEX "Run_sortAt_id_idx" ON "Run"("sortAt", "id");

-- CreateIndex
CREATE INDEX "Run_singleStreamTokS_sortAt_idx" ON "Run"("singleStreamTokS", "sortAt");

-- CreateIndex
CREATE INDEX "Run_peakTokS_sortAt_idx" ON "Run"("peakTokS", "sortAt");

-- CreateTable
CREATE TABLE "RunTotal" (
    "id" INTEGER NOT NULL PRIMARY KEY,
    "runs" INTEGER NOT NULL
);

-- The number of runs, kept by every insert and delete (the app's, a restore's, `servebench db copy`'s alike).
INSERT INTO "RunTotal" ("id", "runs") SELECT 1, count(*) FROM "Run";

CREATE TRIGGER "Run_total_after_insert" AFTER INSERT ON "Run" BEGIN
    UPDATE "RunTotal" SET "runs" = "runs" + 1 WHERE "id" = 1;
END;

CREATE TRIGGER "Run_total_after_delete" AFTER DELETE ON "Run" BEGIN
    UPDATE "RunTotal" SET "runs" = "runs" - 1 WHERE "id" = 1;
END;

-- The text search: an FTS5 trigram index over Run.searchText (already lower-cased by the app), so a search of
-- three characters or more finds its runs without reading every row. Case-sensitive on purpose: both sides are
-- lower-cased by the app, which makes a match exactly "searchText contains q", as on PostgreSQL.
CREATE VIRTUAL TABLE "RunSearch" USING fts5(
    "searchText",
    content = 'Run',
    content_rowid = 'rowid',
    tokenize = 'trigram case_sensitive 1'
);

INSERT INTO "RunSearch" ("RunSearch") VALUES ('rebuild');

CREATE TRIGGER "Run_search_after_insert" AFTER INSERT ON "Run" BEGIN
    INSERT INTO "RunSearch" ("rowid", "searchText") VALUES (new."rowid", new."searchText");
END;

CREATE TRIGGER "Run_search_after_delete" AFTER DELETE ON "Run" BEGIN
    INSERT INTO "RunSearch" ("RunSearch", "rowid", "searchText") VALUES ('delete', old."rowid", old."searchText");
END;

CREATE TRIGGER "Run_search_after_update" AFTER UPDATE OF "searchText" ON "Run" BEGIN
    INSERT INTO "RunSearch" ("RunSearch", "rowid", "searchText") VALUES ('delete', old."rowid", old."searchText");
    INSERT INTO "RunSearch" ("rowid", "searchText") VALUES (new."rowid", new."searchText");
END;
