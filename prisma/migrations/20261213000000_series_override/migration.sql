-- AlterTable
ALTER TABLE "Run" ADD COLUMN "seriesOverride" BOOLEAN NOT NULL DEFAULT false;
