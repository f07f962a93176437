-- PostgreSQL counterpart of the SQLite migration(s): 20261214000000_change_last_good
-- Written by `npm run db:counterparts` from the SQLite schema before and after; reviewed by hand.

-- AlterTable
ALTER TABLE "SeriesChange" ADD COLUMN "lastGoodRunId" TEXT COLLATE "C";
