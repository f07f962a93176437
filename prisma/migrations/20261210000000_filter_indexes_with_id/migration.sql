-- The engine, model and GPU filters' indexes carry the run's id: a filtered page walks one of them newest first
-- and the tag filter looks each run up by id, so without it every run walked was a visit to its (wide) row; and
-- ties of sortAt come in the page's order (sortAt, id) without a sort.

-- DropIndex
DROP INDEX "Run_engine_sortAt_idx";

-- DropIndex
DROP INDEX "Run_model_sortAt_idx";

-- DropIndex
DROP INDEX "Run_gpu_sortAt_idx";

-- CreateIndex
CREATE INDEX "Run_engine_sortAt_id_idx" ON "Run"("engine", "sortAt", "id");

-- CreateIndex
CREATE INDEX "Run_model_sortAt_id_idx" ON "Run"("model", "sortAt", "id");

-- CreateIndex
CREATE INDEX "Run_gpu_sortAt_id_idx" ON "Run"("gpu", "sortAt", "id");
