-- PostgreSQL counterpart of the SQLite migration(s): 20261209000000_search_triples
-- Written by `npm run db:counterparts` from the SQLite schema before and after; reviewed by hand.
-- Ported by hand: the partial index's condition, and for SQLite's FTS5 table of word triples (with its triggers) a
-- GIN index of the triples' tokens, which `string_to_array("searchTriples", ' ') @> ARRAY[…]` asks.

-- AlterTable
ALTER TABLE "Run" ADD COLUMN "searchTriples" TEXT COLLATE "C";

-- The runs whose triples are still to be written: one probe tells the search whether the index is complete.
CREATE INDEX "Run_searchTriples_missing_idx" ON "Run"("id") WHERE "searchTriples" IS NULL;

CREATE INDEX "Run_searchTriples_gin_idx" ON "Run" USING GIN (string_to_array("searchTriples", ' '));
