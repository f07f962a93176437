-- PostgreSQL counterpart of the SQLite migration(s): 20261204000000_point_repeat
-- Written by `npm run db:counterparts` from the SQLite schema before and after; reviewed by hand.

-- AlterTable
ALTER TABLE "ResultPoint" ADD COLUMN "repeat" INTEGER;
