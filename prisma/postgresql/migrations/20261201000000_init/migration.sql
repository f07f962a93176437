-- PostgreSQL counterpart of the SQLite migration(s): 20261130000000_init, 20261130090000_import_provenance, 20261130100000_saved_comparisons, 20261130110000_content_hash, 20261201000000_request_goodput
-- Written by `npm run db:counterparts` from the SQLite schema before and after; reviewed by hand.

-- CreateTable
CREATE TABLE "Comparison" (
    "slug" TEXT COLLATE "C" NOT NULL,
    "title" TEXT COLLATE "C" NOT NULL,
    "notes" TEXT COLLATE "C",
    "runIdsJson" TEXT COLLATE "C" NOT NULL,
    "baselineId" TEXT COLLATE "C",
    "viewJson" TEXT COLLATE "C" NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,
    CONSTRAINT "Comparison_pkey" PRIMARY KEY ("slug")
);

-- CreateTable
CREATE TABLE "ResultPoint" (
    "id" SERIAL NOT NULL,
    "runId" TEXT COLLATE "C" NOT NULL,
    "position" INTEGER NOT NULL,
    "concurrency" INTEGER,
    "request_rate" DOUBLE PRECISION,
    "request_rate_infinite" BOOLEAN NOT NULL DEFAULT false,
    "completed" INTEGER,
    "failed" INTEGER,
    "duration_s" DOUBLE PRECISION,
    "total_input_tokens" INTEGER,
    "total_output_tokens" INTEGER,
    "request_throughput" DOUBLE PRECISION,
    "output_throughput" DOUBLE PRECISION,
    "total_token_throughput" DOUBLE PRECISION,
    "mean_ttft_ms" DOUBLE PRECISION,
    "mean_tpot_ms" DOUBLE PRECISION,
    "mean_itl_ms" DOUBLE PRECISION,
    "mean_e2el_ms" DOUBLE PRECISION,
    "median_ttft_ms" DOUBLE PRECISION,
    "median_tpot_ms" DOUBLE PRECISION,
    "median_itl_ms" DOUBLE PRECISION,
    "median_e2el_ms" DOUBLE PRECISION,
    "p90_ttft_ms" DOUBLE PRECISION,
    "p90_tpot_ms" DOUBLE PRECISION,
    "p90_itl_ms" DOUBLE PRECISION,
    "p90_e2el_ms" DOUBLE PRECISION,
    "p99_ttft_ms" DOUBLE PRECISION,
    "p99_tpot_ms" DOUBLE PRECISION,
    "p99_itl_ms" DOUBLE PRECISION,
    "p99_e2el_ms" DOUBLE PRECISION,
    "mean_e2el_per_token_ms" DOUBLE PRECISION,
    "median_e2el_per_token_ms" DOUBLE PRECISION,
    "std_ttft_ms" DOUBLE PRECISION,
    "std_tpot_ms" DOUBLE PRECISION,
    "std_itl_ms" DOUBLE PRECISION,
    "std_e2el_ms" DOUBLE PRECISION,
    "std_e2el_per_token_ms" DOUBLE PRECISION,
    "p90_e2el_per_token_ms" DOUBLE PRECISION,
    "p95_ttft_ms" DOUBLE PRECISION,
    "p95_tpot_ms" DOUBLE PRECISION,
    "p95_itl_ms" DOUBLE PRECISION,
    "p95_e2el_ms" DOUBLE PRECISION,
    "p95_e2el_per_token_ms" DOUBLE PRECISION,
    "p99_e2el_per_token_ms" DOUBLE PRECISION,
    "sourcesJson" TEXT COLLATE "C",
    "request_goodput" DOUBLE PRECISION,
    CONSTRAINT "ResultPoint_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Run" (
    "id" TEXT COLLATE "C" NOT NULL,
    "name" TEXT COLLATE "C" NOT NULL,
    "engine" TEXT COLLATE "C" NOT NULL,
    "engineVersion" TEXT COLLATE "C",
    "model" TEXT COLLATE "C" NOT NULL,
    "gpu" TEXT COLLATE "C",
    "gpuCount" INTEGER,
    "gpuMemoryMib" INTEGER,
    "command" TEXT COLLATE "C",
    "flagsJson" TEXT COLLATE "C" NOT NULL,
    "envJson" TEXT COLLATE "C" NOT NULL,
    "workloadJson" TEXT COLLATE "C",
    "speculativeJson" TEXT COLLATE "C",
    "serverStartupS" DOUBLE PRECISION,
    "notes" TEXT COLLATE "C",
    "metadataJson" TEXT COLLATE "C" NOT NULL,
    "sourceFormat" TEXT COLLATE "C" NOT NULL,
    "measuredAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "sortAt" TIMESTAMP(3) NOT NULL,
    "searchText" TEXT COLLATE "C" NOT NULL,
    "singleStreamTokS" DOUBLE PRECISION,
    "singleStreamDerived" BOOLEAN NOT NULL,
    "peakTokS" DOUBLE PRECISION,
    "peakConcurrency" INTEGER,
    "peakRequestRate" TEXT COLLATE "C",
    "pointCount" INTEGER NOT NULL,
    "warningsJson" TEXT COLLATE "C" NOT NULL DEFAULT '[]',
    "contentHash" TEXT COLLATE "C",
    CONSTRAINT "Run_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "RunTag" (
    "runId" TEXT COLLATE "C" NOT NULL,
    "tag" TEXT COLLATE "C" NOT NULL,
    CONSTRAINT "RunTag_pkey" PRIMARY KEY ("runId", "tag")
);

-- CreateIndex
CREATE INDEX "Comparison_createdAt_idx" ON "Comparison"("createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "ResultPoint_runId_position_key" ON "ResultPoint"("runId", "position");

-- CreateIndex
CREATE UNIQUE INDEX "Run_contentHash_key" ON "Run"("contentHash");

-- CreateIndex
CREATE INDEX "Run_name_idx" ON "Run"("name");

-- CreateIndex
CREATE INDEX "Run_peakTokS_idx" ON "Run"("peakTokS");

-- CreateIndex
CREATE INDEX "Run_singleStreamTokS_idx" ON "Run"("singleStreamTokS");

-- CreateIndex
CREATE INDEX "Run_gpu_sortAt_idx" ON "Run"("gpu", "sortAt");

-- CreateIndex
CREATE INDEX "Run_model_sortAt_idx" ON "Run"("model", "sortAt");

-- CreateIndex
CREATE INDEX "Run_engine_sortAt_idx" ON "Run"("engine", "sortAt");

-- CreateIndex
CREATE INDEX "Run_createdAt_idx" ON "Run"("createdAt");

-- CreateIndex
CREATE INDEX "Run_sortAt_idx" ON "Run"("sortAt");

-- CreateIndex
CREATE INDEX "RunTag_tag_idx" ON "RunTag"("tag");

-- AddForeignKey
ALTER TABLE "ResultPoint" ADD CONSTRAINT "ResultPoint_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "RunTag" ADD CONSTRAINT "RunTag_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;
