-- PostgreSQL counterpart of the SQLite migration(s): 20261210000000_filter_indexes_with_id
-- Written by `npm run db:counterparts` from the SQLite schema before and after; reviewed by hand.

-- DropIndex
DROP INDEX "Run_gpu_sortAt_idx";

-- DropIndex
DROP INDEX "Run_model_sortAt_idx";

-- DropIndex
DROP INDEX "Run_engine_sortAt_idx";

-- CreateIndex
CREATE INDEX "Run_gpu_sortAt_id_idx" ON "Run"("gpu", "sortAt", "id");

-- CreateIndex
CREATE INDEX "Run_model_sortAt_id_idx" ON "Run"("model", "sortAt", "id");

-- CreateIndex
CREATE INDEX "Run_engine_sortAt_id_idx" ON "Run"("engine", "sortAt", "id");
