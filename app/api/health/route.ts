import { NextResponse } from "next/server";
import {
  currentStorageProblem,
  noteStorageProblem,
  refineStorageProblem,
  type StorageProblem,
  storageError,
  storageProblemOf,
} from "@/lib/db/storage";
import { errorBody } from "@/lib/http/errors";
import { apiRoute, methodsNotAllowed } from "@/lib/http/route";
import { countRuns } from "@/lib/runs/summaries";

export const dynamic = "force-dynamic";

/**
 * 200 `{ ok: true, database: "ok" }` when the database answers and can take writes; 503 with `database` set to
 * `disk_full`, `read_only` or `unavailable` (and the error shape saying what to do) when it cannot.
 */
export const GET = apiRoute(async () => {
  let problem: StorageProblem | null = null;
  try {
    await countRuns();
  } catch (error) {
    const found = storageProblemOf(error);
    if (!found) throw error;
    problem = refineStorageProblem(found);
    noteStorageProblem(problem);
  }
  problem ??= currentStorageProblem();
  if (!problem) return NextResponse.json({ ok: true, database: "ok" });
  return NextResponse.json({ ok: false, database: problem, ...errorBody(storageError(problem)) }, { status: 503 });
});

// The methods this address does not take: 405 with a body that says which it does.
export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed(["GET"]);
