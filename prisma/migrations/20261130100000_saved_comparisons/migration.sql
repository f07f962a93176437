-- CreateTable
CREATE TABLE "Comparison" (
    "slug" TEXT NOT NULL PRIMARY KEY,
    "title" TEXT NOT NULL,
    "notes" TEXT,
    "runIdsJson" TEXT NOT NULL,
    "baselineId" TEXT,
    "viewJson" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "Comparison_createdAt_idx" ON "Comparison"("createdAt");
