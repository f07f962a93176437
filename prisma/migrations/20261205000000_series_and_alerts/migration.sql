-- CreateTable
CREATE TABLE "Series" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "key" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "explicit" BOOLEAN NOT NULL,
    "settingsJson" TEXT NOT NULL DEFAULT '{}',
    "createdAt" DATETIME NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'insufficient',
    "trendJson" TEXT NOT NULL DEFAULT '[]',
    "lastValue" REAL,
    "lastMetric" TEXT,
    "judgedAt" DATETIME
);

-- AlterTable
ALTER TABLE "Run" ADD COLUMN "seriesName" TEXT;
ALTER TABLE "Run" ADD COLUMN "gitCommit" TEXT;
ALTER TABLE "Run" ADD COLUMN "gitBranch" TEXT;
ALTER TABLE "Run" ADD COLUMN "ciUrl" TEXT;
ALTER TABLE "Run" ADD COLUMN "seriesId" TEXT REFERENCES "Series" ("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- CreateTable
CREATE TABLE "SeriesChange" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "seriesId" TEXT NOT NULL,
    "metric" TEXT NOT NULL,
    "startGroup" TEXT NOT NULL,
    "startRunId" TEXT NOT NULL,
    "lastRunId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "direction" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'open',
    "note" TEXT,
    "before" REAL NOT NULL,
    "after" REAL NOT NULL,
    "changePct" REAL NOT NULL,
    "zScore" REAL,
    "pValue" REAL,
    "violations" INTEGER NOT NULL,
    "active" BOOLEAN NOT NULL,
    "detectedAt" DATETIME NOT NULL,
    "confirmedAt" DATETIME,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "SeriesChange_seriesId_fkey" FOREIGN KEY ("seriesId") REFERENCES "Series" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "SeriesChangeRun" (
    "changeId" TEXT NOT NULL,
    "runId" TEXT NOT NULL,

    PRIMARY KEY ("changeId", "runId"),
    CONSTRAINT "SeriesChangeRun_changeId_fkey" FOREIGN KEY ("changeId") REFERENCES "SeriesChange" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "SeriesChangeRun_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "SeriesAnnotation" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "seriesId" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "note" TEXT,
    "changeId" TEXT,
    "createdAt" DATETIME NOT NULL,
    CONSTRAINT "SeriesAnnotation_seriesId_fkey" FOREIGN KEY ("seriesId") REFERENCES "Series" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "SeriesAnnotation_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "SeriesAnnotation_changeId_fkey" FOREIGN KEY ("changeId") REFERENCES "SeriesChange" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "WebhookDelivery" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "changeId" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "payloadJson" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" DATETIME NOT NULL,
    "leaseUntil" DATETIME,
    "createdAt" DATETIME NOT NULL,
    "deliveredAt" DATETIME,
    CONSTRAINT "WebhookDelivery_changeId_fkey" FOREIGN KEY ("changeId") REFERENCES "SeriesChange" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "WebhookAttempt" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "deliveryId" INTEGER NOT NULL,
    "at" DATETIME NOT NULL,
    "httpStatus" INTEGER,
    "error" TEXT,
    "durationMs" INTEGER NOT NULL,
    CONSTRAINT "WebhookAttempt_deliveryId_fkey" FOREIGN KEY ("deliveryId") REFERENCES "WebhookDelivery" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "Series_key_key" ON "Series"("key");

-- CreateIndex
CREATE INDEX "Series_name_idx" ON "Series"("name");

-- CreateIndex
CREATE INDEX "Run_seriesId_sortAt_idx" ON "Run"("seriesId", "sortAt");

-- CreateIndex
CREATE INDEX "SeriesChange_kind_status_detectedAt_idx" ON "SeriesChange"("kind", "status", "detectedAt");

-- CreateIndex
CREATE INDEX "SeriesChange_seriesId_detectedAt_idx" ON "SeriesChange"("seriesId", "detectedAt");

-- CreateIndex
CREATE UNIQUE INDEX "SeriesChange_seriesId_metric_startGroup_key" ON "SeriesChange"("seriesId", "metric", "startGroup");

-- CreateIndex
CREATE INDEX "SeriesChangeRun_runId_idx" ON "SeriesChangeRun"("runId");

-- CreateIndex
CREATE INDEX "SeriesAnnotation_seriesId_idx" ON "SeriesAnnotation"("seriesId");

-- CreateIndex
CREATE UNIQUE INDEX "SeriesAnnotation_changeId_key" ON "SeriesAnnotation"("changeId");

-- CreateIndex
CREATE INDEX "WebhookDelivery_status_nextAttemptAt_idx" ON "WebhookDelivery"("status", "nextAttemptAt");

-- CreateIndex
CREATE UNIQUE INDEX "WebhookDelivery_changeId_url_key" ON "WebhookDelivery"("changeId", "url");

-- CreateIndex
CREATE INDEX "WebhookAttempt_deliveryId_idx" ON "WebhookAttempt"("deliveryId");
