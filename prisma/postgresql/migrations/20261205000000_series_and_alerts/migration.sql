-- PostgreSQL counterpart of the SQLite migration(s): 20261205000000_series_and_alerts
-- Written by `npm run db:counterparts` from the SQLite schema before and after; reviewed by hand.

-- AlterTable
ALTER TABLE "Run" ADD COLUMN "seriesName" TEXT COLLATE "C",
ADD COLUMN "gitCommit" TEXT COLLATE "C",
ADD COLUMN "gitBranch" TEXT COLLATE "C",
ADD COLUMN "ciUrl" TEXT COLLATE "C",
ADD COLUMN "seriesId" TEXT COLLATE "C";

-- CreateTable
CREATE TABLE "Series" (
    "id" TEXT COLLATE "C" NOT NULL,
    "key" TEXT COLLATE "C" NOT NULL,
    "name" TEXT COLLATE "C" NOT NULL,
    "explicit" BOOLEAN NOT NULL,
    "settingsJson" TEXT COLLATE "C" NOT NULL DEFAULT '{}',
    "createdAt" TIMESTAMP(3) NOT NULL,
    "status" TEXT COLLATE "C" NOT NULL DEFAULT 'insufficient',
    "trendJson" TEXT COLLATE "C" NOT NULL DEFAULT '[]',
    "lastValue" DOUBLE PRECISION,
    "lastMetric" TEXT COLLATE "C",
    "judgedAt" TIMESTAMP(3),
    CONSTRAINT "Series_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SeriesAnnotation" (
    "id" TEXT COLLATE "C" NOT NULL,
    "seriesId" TEXT COLLATE "C" NOT NULL,
    "runId" TEXT COLLATE "C" NOT NULL,
    "note" TEXT COLLATE "C",
    "changeId" TEXT COLLATE "C",
    "createdAt" TIMESTAMP(3) NOT NULL,
    CONSTRAINT "SeriesAnnotation_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SeriesChange" (
    "id" TEXT COLLATE "C" NOT NULL,
    "seriesId" TEXT COLLATE "C" NOT NULL,
    "metric" TEXT COLLATE "C" NOT NULL,
    "startGroup" TEXT COLLATE "C" NOT NULL,
    "startRunId" TEXT COLLATE "C" NOT NULL,
    "lastRunId" TEXT COLLATE "C" NOT NULL,
    "kind" TEXT COLLATE "C" NOT NULL,
    "direction" TEXT COLLATE "C" NOT NULL,
    "status" TEXT COLLATE "C" NOT NULL DEFAULT 'open',
    "note" TEXT COLLATE "C",
    "before" DOUBLE PRECISION NOT NULL,
    "after" DOUBLE PRECISION NOT NULL,
    "changePct" DOUBLE PRECISION NOT NULL,
    "zScore" DOUBLE PRECISION,
    "pValue" DOUBLE PRECISION,
    "violations" INTEGER NOT NULL,
    "active" BOOLEAN NOT NULL,
    "detectedAt" TIMESTAMP(3) NOT NULL,
    "confirmedAt" TIMESTAMP(3),
    "updatedAt" TIMESTAMP(3) NOT NULL,
    CONSTRAINT "SeriesChange_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SeriesChangeRun" (
    "changeId" TEXT COLLATE "C" NOT NULL,
    "runId" TEXT COLLATE "C" NOT NULL,
    CONSTRAINT "SeriesChangeRun_pkey" PRIMARY KEY ("changeId", "runId")
);

-- CreateTable
CREATE TABLE "WebhookAttempt" (
    "id" SERIAL NOT NULL,
    "deliveryId" INTEGER NOT NULL,
    "at" TIMESTAMP(3) NOT NULL,
    "httpStatus" INTEGER,
    "error" TEXT COLLATE "C",
    "durationMs" INTEGER NOT NULL,
    CONSTRAINT "WebhookAttempt_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "WebhookDelivery" (
    "id" SERIAL NOT NULL,
    "changeId" TEXT COLLATE "C" NOT NULL,
    "url" TEXT COLLATE "C" NOT NULL,
    "payloadJson" TEXT COLLATE "C" NOT NULL,
    "status" TEXT COLLATE "C" NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" TIMESTAMP(3) NOT NULL,
    "leaseUntil" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL,
    "deliveredAt" TIMESTAMP(3),
    CONSTRAINT "WebhookDelivery_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Run_seriesId_sortAt_idx" ON "Run"("seriesId", "sortAt");

-- CreateIndex
CREATE INDEX "Series_name_idx" ON "Series"("name");

-- CreateIndex
CREATE UNIQUE INDEX "Series_key_key" ON "Series"("key");

-- CreateIndex
CREATE UNIQUE INDEX "SeriesAnnotation_changeId_key" ON "SeriesAnnotation"("changeId");

-- CreateIndex
CREATE INDEX "SeriesAnnotation_seriesId_idx" ON "SeriesAnnotation"("seriesId");

-- CreateIndex
CREATE UNIQUE INDEX "SeriesChange_seriesId_metric_startGroup_key" ON "SeriesChange"("seriesId", "metric", "startGroup");

-- CreateIndex
CREATE INDEX "SeriesChange_seriesId_detectedAt_idx" ON "SeriesChange"("seriesId", "detectedAt");

-- CreateIndex
CREATE INDEX "SeriesChange_kind_status_detectedAt_idx" ON "SeriesChange"("kind", "status", "detectedAt");

-- CreateIndex
CREATE INDEX "SeriesChangeRun_runId_idx" ON "SeriesChangeRun"("runId");

-- CreateIndex
CREATE INDEX "WebhookAttempt_deliveryId_idx" ON "WebhookAttempt"("deliveryId");

-- CreateIndex
CREATE UNIQUE INDEX "WebhookDelivery_changeId_url_key" ON "WebhookDelivery"("changeId", "url");

-- CreateIndex
CREATE INDEX "WebhookDelivery_status_nextAttemptAt_idx" ON "WebhookDelivery"("status", "nextAttemptAt");

-- AddForeignKey
ALTER TABLE "Run" ADD CONSTRAINT "Run_seriesId_fkey" FOREIGN KEY ("seriesId") REFERENCES "Series"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SeriesAnnotation" ADD CONSTRAINT "SeriesAnnotation_changeId_fkey" FOREIGN KEY ("changeId") REFERENCES "SeriesChange"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SeriesAnnotation" ADD CONSTRAINT "SeriesAnnotation_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SeriesAnnotation" ADD CONSTRAINT "SeriesAnnotation_seriesId_fkey" FOREIGN KEY ("seriesId") REFERENCES "Series"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SeriesChange" ADD CONSTRAINT "SeriesChange_seriesId_fkey" FOREIGN KEY ("seriesId") REFERENCES "Series"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SeriesChangeRun" ADD CONSTRAINT "SeriesChangeRun_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SeriesChangeRun" ADD CONSTRAINT "SeriesChangeRun_changeId_fkey" FOREIGN KEY ("changeId") REFERENCES "SeriesChange"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WebhookAttempt" ADD CONSTRAINT "WebhookAttempt_deliveryId_fkey" FOREIGN KEY ("deliveryId") REFERENCES "WebhookDelivery"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WebhookDelivery" ADD CONSTRAINT "WebhookDelivery_changeId_fkey" FOREIGN KEY ("changeId") REFERENCES "SeriesChange"("id") ON DELETE CASCADE ON UPDATE CASCADE;
