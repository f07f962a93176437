-- PostgreSQL counterpart of the SQLite migration(s): 20261215000000_run_accuracy
-- Written by `npm run db:counterparts` from the SQLite schema before and after; reviewed by hand.

-- AlterTable
ALTER TABLE "Run" ADD COLUMN "accuracyJson" TEXT COLLATE "C";
