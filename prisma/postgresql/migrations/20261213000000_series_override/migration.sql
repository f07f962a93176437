-- PostgreSQL counterpart of the SQLite migration(s): 20261213000000_series_override
-- Written by `npm run db:counterparts` from the SQLite schema before and after; reviewed by hand.

-- AlterTable
ALTER TABLE "Run" ADD COLUMN "seriesOverride" BOOLEAN NOT NULL DEFAULT false;
