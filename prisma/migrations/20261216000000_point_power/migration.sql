-- AlterTable
ALTER TABLE "ResultPoint" ADD COLUMN "power_w_mean" REAL;
ALTER TABLE "ResultPoint" ADD COLUMN "power_w_max" REAL;
ALTER TABLE "ResultPoint" ADD COLUMN "energy_j" REAL;
ALTER TABLE "ResultPoint" ADD COLUMN "power_gpu_count" INTEGER;
ALTER TABLE "ResultPoint" ADD COLUMN "power_samples" INTEGER;
ALTER TABLE "ResultPoint" ADD COLUMN "power_source" TEXT;
