-- AlterTable
ALTER TABLE "Run" ADD COLUMN "accuracyJson" TEXT;
