-- AlterTable
ALTER TABLE "Run" ADD COLUMN "notImportedJson" TEXT NOT NULL DEFAULT '[]';

-- AlterTable
ALTER TABLE "ResultPoint" ADD COLUMN "decode_throughput" REAL;
