-- PostgreSQL counterpart of the SQLite migration(s): 20261212000000_model_size
-- Written by `npm run db:counterparts` from the SQLite schema before and after; reviewed by hand.

-- AlterTable
ALTER TABLE "Run" ADD COLUMN "modelSizeJson" TEXT COLLATE "C";
