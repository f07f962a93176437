-- CreateTable
CREATE TABLE "RestoreJob" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "status" TEXT NOT NULL,
    "phase" TEXT NOT NULL,
    "bytesReceived" INTEGER NOT NULL DEFAULT 0,
    "partsReceived" INTEGER NOT NULL DEFAULT 0,
    "linesReceived" INTEGER NOT NULL DEFAULT 0,
    "nextPart" INTEGER NOT NULL DEFAULT 0,
    "linesDone" INTEGER NOT NULL DEFAULT 0,
    "stateJson" TEXT NOT NULL,
    "seriesJson" TEXT NOT NULL DEFAULT '[]',
    "error" TEXT,
    "leaseHolder" TEXT,
    "leaseUntil" DATETIME,
    "createdAt" DATETIME NOT NULL,
    "updatedAt" DATETIME NOT NULL,
    "finishedAt" DATETIME
);

-- CreateTable
CREATE TABLE "RestoreJobPart" (
    "jobId" TEXT NOT NULL,
    "index" INTEGER NOT NULL,
    "firstLine" INTEGER NOT NULL,
    "lineCount" INTEGER NOT NULL,
    "bytes" BLOB NOT NULL,

    PRIMARY KEY ("jobId", "index"),
    CONSTRAINT "RestoreJobPart_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "RestoreJob" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "RestoreJob_status_idx" ON "RestoreJob"("status");
