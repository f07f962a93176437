-- PostgreSQL counterpart of the SQLite migration(s): 20261211000000_restore_jobs
-- Written by `npm run db:counterparts` from the SQLite schema before and after; reviewed by hand.

-- CreateTable
CREATE TABLE "RestoreJob" (
    "id" TEXT COLLATE "C" NOT NULL,
    "status" TEXT COLLATE "C" NOT NULL,
    "phase" TEXT COLLATE "C" NOT NULL,
    "bytesReceived" INTEGER NOT NULL DEFAULT 0,
    "partsReceived" INTEGER NOT NULL DEFAULT 0,
    "linesReceived" INTEGER NOT NULL DEFAULT 0,
    "nextPart" INTEGER NOT NULL DEFAULT 0,
    "linesDone" INTEGER NOT NULL DEFAULT 0,
    "stateJson" TEXT COLLATE "C" NOT NULL,
    "seriesJson" TEXT COLLATE "C" NOT NULL DEFAULT '[]',
    "error" TEXT COLLATE "C",
    "leaseHolder" TEXT COLLATE "C",
    "leaseUntil" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "finishedAt" TIMESTAMP(3),
    CONSTRAINT "RestoreJob_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "RestoreJobPart" (
    "jobId" TEXT COLLATE "C" NOT NULL,
    "index" INTEGER NOT NULL,
    "firstLine" INTEGER NOT NULL,
    "lineCount" INTEGER NOT NULL,
    "bytes" BYTEA NOT NULL,
    CONSTRAINT "RestoreJobPart_pkey" PRIMARY KEY ("jobId", "index")
);

-- CreateIndex
CREATE INDEX "RestoreJob_status_idx" ON "RestoreJob"("status");

-- AddForeignKey
ALTER TABLE "RestoreJobPart" ADD CONSTRAINT "RestoreJobPart_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "RestoreJob"("id") ON DELETE CASCADE ON UPDATE CASCADE;
