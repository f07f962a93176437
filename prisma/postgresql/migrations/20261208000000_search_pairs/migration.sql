-- PostgreSQL counterpart of the SQLite migration(s): 20261208000000_search_pairs
-- Written by `npm run db:counterparts` from the SQLite schema before and after; reviewed by hand.
-- Ported by hand: the partial index's condition, and for SQLite's FTS5 table of word pairs (with its triggers) a
-- GIN index of the pairs' tokens, which `string_to_array("searchPairs", ' ') @> ARRAY[…]` asks.

-- AlterTable
ALTER TABLE "Run" ADD COLUMN "searchPairs" TEXT COLLATE "C";

-- The runs whose pairs are still to be written: one probe tells the search whether the index is complete.
CREATE INDEX "Run_searchPairs_missing_idx" ON "Run"("id") WHERE "searchPairs" IS NULL;

CREATE INDEX "Run_searchPairs_gin_idx" ON "Run" USING GIN (string_to_array("searchPairs", ' '));
