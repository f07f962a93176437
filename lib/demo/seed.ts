import { normalizeRunDocument } from "@/lib/document/normalize";
import { createRun } from "@/lib/runs/store";
import { countRuns } from "@/lib/runs/summaries";
import { DEMO_RUNS } from "./runs";

/** Load the demo runs into an empty database. Returns how many were loaded (0 when it was not empty). */
export async function seedDemoRunsIfEmpty(): Promise<number> {
  if ((await countRuns()) > 0) return 0;
  // One second apart, oldest first, so the history lists them in the order the campaign ran them.
  const start = Date.now() - DEMO_RUNS.length * 1000;
  for (const [index, run] of DEMO_RUNS.entries()) {
    try {
      await createRun(normalizeRunDocument(run), { createdAt: new Date(start + index * 1000) });
    } catch (error) {
      // Several instances starting together on one PostgreSQL database: another one stored this run first.
      if ((error as { code?: unknown }).code !== "P2002") throw error;
    }
  }
  return DEMO_RUNS.length;
}
