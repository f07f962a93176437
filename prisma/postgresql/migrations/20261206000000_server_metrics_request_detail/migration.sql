-- PostgreSQL counterpart of the SQLite migration(s): 20261206000000_server_metrics_request_detail
-- Written by `npm run db:counterparts` from the SQLite schema before and after; reviewed by hand.

-- AlterTable
ALTER TABLE "ResultPoint" ADD COLUMN "server_running_requests_mean" DOUBLE PRECISION,
ADD COLUMN "server_running_requests_max" DOUBLE PRECISION,
ADD COLUMN "server_waiting_requests_mean" DOUBLE PRECISION,
ADD COLUMN "server_waiting_requests_max" DOUBLE PRECISION,
ADD COLUMN "server_kv_cache_usage_mean" DOUBLE PRECISION,
ADD COLUMN "server_kv_cache_usage_max" DOUBLE PRECISION,
ADD COLUMN "server_preemptions" INTEGER,
ADD COLUMN "server_prefix_cache_hit_rate" DOUBLE PRECISION,
ADD COLUMN "server_spec_acceptance_rate" DOUBLE PRECISION,
ADD COLUMN "server_spec_acceptance_length" DOUBLE PRECISION,
ADD COLUMN "server_mean_ttft_ms" DOUBLE PRECISION,
ADD COLUMN "server_mean_tpot_ms" DOUBLE PRECISION,
ADD COLUMN "server_mean_itl_ms" DOUBLE PRECISION,
ADD COLUMN "server_metrics_samples" INTEGER,
ADD COLUMN "percentilesJson" TEXT COLLATE "C",
ADD COLUMN "requestsJson" TEXT COLLATE "C";
