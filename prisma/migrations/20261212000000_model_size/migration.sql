-- AlterTable
ALTER TABLE "Run" ADD COLUMN "modelSizeJson" TEXT;
