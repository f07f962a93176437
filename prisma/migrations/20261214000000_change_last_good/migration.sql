-- AlterTable
ALTER TABLE "SeriesChange" ADD COLUMN "lastGoodRunId" TEXT;
