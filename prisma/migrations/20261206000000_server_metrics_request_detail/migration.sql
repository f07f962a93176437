-- AlterTable
ALTER TABLE "ResultPoint" ADD COLUMN "server_running_requests_mean" REAL;
ALTER TABLE "ResultPoint" ADD COLUMN "server_running_requests_max" REAL;
ALTER TABLE "ResultPoint" ADD COLUMN "server_waiting_requests_mean" REAL;
ALTER TABLE "ResultPoint" ADD COLUMN "server_waiting_requests_max" REAL;
ALTER TABLE "ResultPoint" ADD COLUMN "server_kv_cache_usage_mean" REAL;
ALTER TABLE "ResultPoint" ADD COLUMN "server_kv_cache_usage_max" REAL;
ALTER TABLE "ResultPoint" ADD COLUMN "server_preemptions" INTEGER;
ALTER TABLE "ResultPoint" ADD COLUMN "server_prefix_cache_hit_rate" REAL;
ALTER TABLE "ResultPoint" ADD COLUMN "server_spec_acceptance_rate" REAL;
ALTER TABLE "ResultPoint" ADD COLUMN "server_spec_acceptance_length" REAL;
ALTER TABLE "ResultPoint" ADD COLUMN "server_mean_ttft_ms" REAL;
ALTER TABLE "ResultPoint" ADD COLUMN "server_mean_tpot_ms" REAL;
ALTER TABLE "ResultPoint" ADD COLUMN "server_mean_itl_ms" REAL;
ALTER TABLE "ResultPoint" ADD COLUMN "server_metrics_samples" INTEGER;
ALTER TABLE "ResultPoint" ADD COLUMN "percentilesJson" TEXT;
ALTER TABLE "ResultPoint" ADD COLUMN "requestsJson" TEXT;
