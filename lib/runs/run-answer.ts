/**
 * GET /api/runs/{id}'s answer: the run as its servebench/v1 document, or (`?format=llm-d`) as llm-d benchmark
 * reports v0.2.1, a JSON array of one report per load point (docs/api.md, docs/formats/llm-d-benchmark-report.md).
 */
import { z } from "zod";
import type { StoredRun } from "@/lib/document/stored-run";
import { exportLlmdReports } from "@/lib/formats/llm-d-export";
import { parseQuery, type RawParams } from "@/lib/http/request";

export const RunReadQuerySchema = z.object({
  format: z
    .enum(["servebench", "llm-d"])
    .optional()
    .describe(
      "`servebench` (default): the servebench/v1 document. `llm-d`: a JSON array of llm-d benchmark reports v0.2.1, one per load point, in the run's order.",
    ),
  price: z
    .string()
    .regex(/^\d{1,6}(\.\d{1,6})?$/, "must be a price in dollars per GPU-hour, such as 2.5")
    .transform(Number)
    .pipe(z.number().positive("must be above 0"))
    .optional()
    .describe(
      "With `format=llm-d`: $ per GPU-hour, so that each report states $ per million output tokens in its servebench extension.",
    ),
});

export type RunReadQuery = z.output<typeof RunReadQuerySchema> & { download: boolean };

/** The query of GET /api/runs/{id}: a 400 naming a parameter that cannot be read, before the run is looked up. */
export function readRunQuery(params: RawParams): RunReadQuery {
  return { ...parseQuery(RunReadQuerySchema, params), download: params.download === "1" };
}

/** The body and download name of the answer the query asks for. */
export function runAnswer(run: StoredRun, query: RunReadQuery): { body: unknown; fileName: string } {
  if (query.format === "llm-d") {
    return {
      body: exportLlmdReports(run, { gpuHourPrice: query.price }),
      fileName: `servebench-run-${run.id}-llm-d.json`,
    };
  }
  return { body: run, fileName: `servebench-run-${run.id}.json` };
}
