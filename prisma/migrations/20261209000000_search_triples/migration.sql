-- The text search's third index: triples of neighbouring words (lib/runs/search-pairs.ts), rarer than any pair of
-- them (a run's whole name holds triples in a tenth of the runs its best pair is in). The app writes each run's
-- triples as tokens into Run.searchTriples; FTS5 keeps an index of them, rowids only, as of the pairs. Runs stored
-- before this migration have none until `npm run db:migrate` fills them in (lib/db/search-pairs-backfill.ts);
-- until then the search does not ask this index.

-- AlterTable
ALTER TABLE "Run" ADD COLUMN "searchTriples" TEXT;

-- The runs whose triples are still to be written: one probe tells the search whether the index is complete.
CREATE INDEX "Run_searchTriples_missing_idx" ON "Run"("id") WHERE "searchTriples" IS NULL;

CREATE VIRTUAL TABLE "RunTriples" USING fts5(
    "searchTriples",
    content = 'Run',
    content_rowid = 'rowid',
    detail = none,
    tokenize = 'ascii'
);

-- Every run already stored enters the index (with no triples yet), so that filling its triples in later, an
-- update, first deletes what the index holds for it: FTS5 refuses to delete a row it never had.
INSERT INTO "RunTriples" ("RunTriples") VALUES ('rebuild');

CREATE TRIGGER "Run_triples_after_insert" AFTER INSERT ON "Run" BEGIN
    INSERT INTO "RunTriples" ("rowid", "searchTriples") VALUES (new."rowid", new."searchTriples");
END;

CREATE TRIGGER "Run_triples_after_delete" AFTER DELETE ON "Run" BEGIN
    INSERT INTO "RunTriples" ("RunTriples", "rowid", "searchTriples") VALUES ('delete', old."rowid", old."searchTriples");
END;

CREATE TRIGGER "Run_triples_after_update" AFTER UPDATE OF "searchTriples" ON "Run" BEGIN
    INSERT INTO "RunTriples" ("RunTriples", "rowid", "searchTriples") VALUES ('delete', old."rowid", old."searchTriples");
    INSERT INTO "RunTriples" ("rowid", "searchTriples") VALUES (new."rowid", new."searchTriples");
END;
