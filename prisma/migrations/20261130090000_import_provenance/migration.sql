-- AlterTable
ALTER TABLE "Run" ADD COLUMN "warningsJson" TEXT NOT NULL DEFAULT '[]';

-- AlterTable
ALTER TABLE "ResultPoint" ADD COLUMN "mean_e2el_per_token_ms" REAL;

-- AlterTable
ALTER TABLE "ResultPoint" ADD COLUMN "median_e2el_per_token_ms" REAL;

-- AlterTable
ALTER TABLE "ResultPoint" ADD COLUMN "std_ttft_ms" REAL;

-- AlterTable
ALTER TABLE "ResultPoint" ADD COLUMN "std_tpot_ms" REAL;

-- AlterTable
ALTER TABLE "ResultPoint" ADD COLUMN "std_itl_ms" REAL;

-- AlterTable
ALTER TABLE "ResultPoint" ADD COLUMN "std_e2el_ms" REAL;

-- AlterTable
ALTER TABLE "ResultPoint" ADD COLUMN "std_e2el_per_token_ms" REAL;

-- AlterTable
ALTER TABLE "ResultPoint" ADD COLUMN "p90_e2el_per_token_ms" REAL;

-- AlterTable
ALTER TABLE "ResultPoint" ADD COLUMN "p95_ttft_ms" REAL;

-- AlterTable
ALTER TABLE "ResultPoint" ADD COLUMN "p95_tpot_ms" REAL;

-- AlterTable
ALTER TABLE "ResultPoint" ADD COLUMN "p95_itl_ms" REAL;

-- AlterTable
ALTER TABLE "ResultPoint" ADD COLUMN "p95_e2el_ms" REAL;

-- AlterTable
ALTER TABLE "ResultPoint" ADD COLUMN "p95_e2el_per_token_ms" REAL;

-- AlterTable
ALTER TABLE "ResultPoint" ADD COLUMN "p99_e2el_per_token_ms" REAL;

-- AlterTable
ALTER TABLE "ResultPoint" ADD COLUMN "sourcesJson" TEXT;
