-- PostgreSQL counterpart of the SQLite migration(s): 20261216000000_point_power
-- Written by `npm run db:counterparts` from the SQLite schema before and after; reviewed by hand.

-- AlterTable
ALTER TABLE "ResultPoint" ADD COLUMN "power_w_mean" DOUBLE PRECISION,
ADD COLUMN "power_w_max" DOUBLE PRECISION,
ADD COLUMN "energy_j" DOUBLE PRECISION,
ADD COLUMN "power_gpu_count" INTEGER,
ADD COLUMN "power_samples" INTEGER,
ADD COLUMN "power_source" TEXT COLLATE "C";
