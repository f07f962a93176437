-- AlterTable
ALTER TABLE "Run" ADD COLUMN "contentHash" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "Run_contentHash_key" ON "Run"("contentHash");
