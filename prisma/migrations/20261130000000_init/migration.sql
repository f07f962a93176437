-- CreateTable
CREATE TABLE "Run" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "engine" TEXT NOT NULL,
    "engineVersion" TEXT,
    "model" TEXT NOT NULL,
    "gpu" TEXT,
    "gpuCount" INTEGER,
    "gpuMemoryMib" INTEGER,
    "command" TEXT,
    "flagsJson" TEXT NOT NULL,
    "envJson" TEXT NOT NULL,
    "workloadJson" TEXT,
    "speculativeJson" TEXT,
    "serverStartupS" REAL,
    "notes" TEXT,
    "metadataJson" TEXT NOT NULL,
    "sourceFormat" TEXT NOT NULL,
    "measuredAt" DATETIME,
    "createdAt" DATETIME NOT NULL,
    "updatedAt" DATETIME NOT NULL,
    "sortAt" DATETIME NOT NULL,
    "searchText" TEXT NOT NULL,
    "singleStreamTokS" REAL,
    "singleStreamDerived" BOOLEAN NOT NULL,
    "peakTokS" REAL,
    "peakConcurrency" INTEGER,
    "peakRequestRate" TEXT,
    "pointCount" INTEGER NOT NULL
);

-- CreateTable
CREATE TABLE "ResultPoint" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "runId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "concurrency" INTEGER,
    "request_rate" REAL,
    "request_rate_infinite" BOOLEAN NOT NULL DEFAULT false,
    "completed" INTEGER,
    "failed" INTEGER,
    "duration_s" REAL,
    "total_input_tokens" INTEGER,
    "total_output_tokens" INTEGER,
    "request_throughput" REAL,
    "output_throughput" REAL,
    "total_token_throughput" REAL,
    "mean_ttft_ms" REAL,
    "mean_tpot_ms" REAL,
    "mean_itl_ms" REAL,
    "mean_e2el_ms" REAL,
    "median_ttft_ms" REAL,
    "median_tpot_ms" REAL,
    "median_itl_ms" REAL,
    "median_e2el_ms" REAL,
    "p90_ttft_ms" REAL,
    "p90_tpot_ms" REAL,
    "p90_itl_ms" REAL,
    "p90_e2el_ms" REAL,
    "p99_ttft_ms" REAL,
    "p99_tpot_ms" REAL,
    "p99_itl_ms" REAL,
    "p99_e2el_ms" REAL,
    CONSTRAINT "ResultPoint_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "RunTag" (
    "runId" TEXT NOT NULL,
    "tag" TEXT NOT NULL,

    PRIMARY KEY ("runId", "tag"),
    CONSTRAINT "RunTag_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "Run_sortAt_idx" ON "Run"("sortAt");

-- CreateIndex
CREATE INDEX "Run_createdAt_idx" ON "Run"("createdAt");

-- CreateIndex
CREATE INDEX "Run_engine_sortAt_idx" ON "Run"("engine", "sortAt");

-- CreateIndex
CREATE INDEX "Run_model_sortAt_idx" ON "Run"("model", "sortAt");

-- CreateIndex
CREATE INDEX "Run_gpu_sortAt_idx" ON "Run"("gpu", "sortAt");

-- CreateIndex
CREATE INDEX "Run_singleStreamTokS_idx" ON "Run"("singleStreamTokS");

-- CreateIndex
CREATE INDEX "Run_peakTokS_idx" ON "Run"("peakTokS");

-- CreateIndex
CREATE INDEX "Run_name_idx" ON "Run"("name");

-- CreateIndex
CREATE UNIQUE INDEX "ResultPoint_runId_position_key" ON "ResultPoint"("runId", "position");

-- CreateIndex
CREATE INDEX "RunTag_tag_idx" ON "RunTag"("tag");
