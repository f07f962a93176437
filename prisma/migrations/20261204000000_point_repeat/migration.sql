-- AlterTable
ALTER TABLE "ResultPoint" ADD COLUMN "repeat" INTEGER;
