-- AlterTable
ALTER TABLE "ResultPoint" ADD COLUMN "request_goodput" REAL;
