/** Exporting and restoring through the real routes, for the tests of export and restore. */
import { expect } from "vitest";
import { GET as exportAll } from "@/app/api/export/route";
import { POST as restore } from "@/app/api/restore/route";
import { db } from "@/lib/db/client";
import type { RestoreReport } from "@/lib/runs/restore-report";
import { BASE, noContext } from "./helpers";

/** Nothing stored: runs, their series (and so their changes and annotations), saved comparisons, deliveries. */
export async function clearEverything(): Promise<void> {
  await db().comparison.deleteMany({});
  await db().run.deleteMany({});
  await db().series.deleteMany({});
}

/** The answer's JSON, once its status is the one expected (the body shows when it is not). */
export async function json<T>(response: Response, status = 200): Promise<T> {
  expect(response.status, await response.clone().text()).toBe(status);
  return (await response.json()) as T;
}

/** GET /api/export, line by line. */
export async function exportLines(): Promise<Record<string, unknown>[]> {
  const text = await (await exportAll(new Request(`${BASE}/api/export`), noContext)).text();
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** POST /api/restore of these lines as an export file; its report. */
export async function restoreLines(lines: readonly unknown[]): Promise<RestoreReport> {
  const response = await restore(
    new Request(`${BASE}/api/restore`, {
      method: "POST",
      headers: { "content-type": "application/x-ndjson" },
      body: `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`,
    }),
    noContext,
  );
  return json<RestoreReport>(response);
}
