-- The text search's second index: pairs of neighbouring words (lib/runs/search-pairs.ts). The app writes each
-- run's pairs as tokens into Run.searchPairs; FTS5 keeps an index of them, rowids only (`detail=none`: a pair is
-- asked for whole, never as a phrase). Runs stored before this migration have none until `npm run db:migrate`
-- fills them in (lib/db/search-pairs-backfill.ts); until then the search does not ask this index.

-- AlterTable
ALTER TABLE "Run" ADD COLUMN "searchPairs" TEXT;

-- The runs whose pairs are still to be written: one probe tells the search whether the index is complete.
CREATE INDEX "Run_searchPairs_missing_idx" ON "Run"("id") WHERE "searchPairs" IS NULL;

CREATE VIRTUAL TABLE "RunPairs" USING fts5(
    "searchPairs",
    content = 'Run',
    content_rowid = 'rowid',
    detail = none,
    tokenize = 'ascii'
);

-- Every run already stored enters the index (with no pairs yet), so that filling its pairs in later, an update,
-- first deletes what the index holds for it: FTS5 refuses to delete a row it never had.
INSERT INTO "RunPairs" ("RunPairs") VALUES ('rebuild');

CREATE TRIGGER "Run_pairs_after_insert" AFTER INSERT ON "Run" BEGIN
    INSERT INTO "RunPairs" ("rowid", "searchPairs") VALUES (new."rowid", new."searchPairs");
END;

CREATE TRIGGER "Run_pairs_after_delete" AFTER DELETE ON "Run" BEGIN
    INSERT INTO "RunPairs" ("RunPairs", "rowid", "searchPairs") VALUES ('delete', old."rowid", old."searchPairs");
END;

CREATE TRIGGER "Run_pairs_after_update" AFTER UPDATE OF "searchPairs" ON "Run" BEGIN
    INSERT INTO "RunPairs" ("RunPairs", "rowid", "searchPairs") VALUES ('delete', old."rowid", old."searchPairs");
    INSERT INTO "RunPairs" ("rowid", "searchPairs") VALUES (new."rowid", new."searchPairs");
END;
