-- PostgreSQL counterpart of the SQLite migration(s): 20261203000000_import_report
-- Written by `npm run db:counterparts` from the SQLite schema before and after; reviewed by hand.

-- AlterTable
ALTER TABLE "ResultPoint" ADD COLUMN "decode_throughput" DOUBLE PRECISION;

-- AlterTable
ALTER TABLE "Run" ADD COLUMN "notImportedJson" TEXT COLLATE "C" NOT NULL DEFAULT '[]';
