-- PostgreSQL counterpart of the SQLite migration(s): 20261207000000_history_at_scale
-- Written by `npm run db:counterparts` from the SQLite schema before and after; reviewed by hand.
-- Ported by hand: the total's triggers (PL/pgSQL) and, for SQLite's FTS5 trigram table, a pg_trgm GIN index.

-- DropIndex
DROP INDEX "Run_sortAt_idx";

-- DropIndex
DROP INDEX "Run_peakTokS_idx";

-- DropIndex
DROP INDEX "Run_singleStreamTokS_idx";

-- CreateTable
CREATE TABLE "RunTotal" (
    "id" INTEGER NOT NULL,
    "runs" INTEGER NOT NULL,
    CONSTRAINT "RunTotal_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Run_sortAt_id_idx" ON "Run"("sortAt", "id");

-- CreateIndex
CREATE INDEX "Run_peakTokS_sortAt_idx" ON "Run"("peakTokS", "sortAt");

-- CreateIndex
CREATE INDEX "Run_singleStreamTokS_sortAt_idx" ON "Run"("singleStreamTokS", "sortAt");

-- The number of runs, kept by every insert and delete. The update takes the row's lock until the writing
-- transaction ends, so concurrent uploads from several instances count exactly.
INSERT INTO "RunTotal" ("id", "runs") SELECT 1, count(*) FROM "Run";

CREATE FUNCTION "Run_total_after_write"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        UPDATE "RunTotal" SET "runs" = "runs" + 1 WHERE "id" = 1;
    ELSE
        UPDATE "RunTotal" SET "runs" = "runs" - 1 WHERE "id" = 1;
    END IF;
    RETURN NULL;
END;
$$;

CREATE TRIGGER "Run_total_after_insert" AFTER INSERT ON "Run" FOR EACH ROW EXECUTE FUNCTION "Run_total_after_write"();

CREATE TRIGGER "Run_total_after_delete" AFTER DELETE ON "Run" FOR EACH ROW EXECUTE FUNCTION "Run_total_after_write"();

-- The text search: a trigram index over Run.searchText (lower-cased by the app). LIKE '%q%' uses it for q of
-- three characters or more, and matches exactly what SQLite's FTS5 trigram table matches. pg_trgm ships with
-- PostgreSQL and is a trusted extension: the database's owner may create it.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE INDEX "Run_searchText_trgm_idx" ON "Run" USING GIN ("searchText" gin_trgm_ops);
