/**
 * What the history shows besides the choice of its runs: each run's row (its summary), the number of runs and the
 * values its filter menus offer.
 */

import { db, provider } from "@/lib/db/client";
import type { Headline } from "@/lib/document/derived";
import { Prisma } from "@/lib/generated/prisma/client";

export interface RunSummary extends Headline {
  id: string;
  url: string;
  name: string;
  engine: string;
  engine_version: string | null;
  model: string;
  hardware: { gpu: string | null; gpu_count: number | null };
  tags: string[];
  measured_at: string | null;
  created_at: string;
  point_count: number;
  source_format: string;
  /** The series the run belongs to (/series/<id>). */
  series_id: string | null;
}

/**
 * What a history row shows, and only that: a run's other columns (its flags, metadata, import report, search
 * text) can be kilobytes each, read and parsed for nothing on every page. Its tags come as a JSON array.
 */
interface SummaryRow {
  id: string;
  name: string;
  engine: string;
  engineVersion: string | null;
  model: string;
  gpu: string | null;
  gpuCount: number | null;
  measuredAt: Date | null;
  createdAt: Date;
  pointCount: number;
  sourceFormat: string;
  seriesId: string | null;
  singleStreamTokS: number | null;
  singleStreamDerived: boolean;
  peakTokS: number | null;
  peakConcurrency: number | null;
  peakRequestRate: string | null;
  tagsJson: string;
}

/**
 * The summaries of these runs, in no particular order: only the columns a row shows, and each run's tags
 * gathered by the database in the same query. Prisma's findMany with the tags relation spent ~35 µs a row of the
 * history page's CPU (a profile of 400 pages of 25 rows against 400 of 1) reading and joining its two results;
 * this one query ~10 µs. The integration suite runs it on both databases.
 */
async function readSummaries(ids: readonly string[]): Promise<SummaryRow[]> {
  if (ids.length === 0) return [];
  const tagsJson =
    provider() === "postgresql"
      ? Prisma.sql`(SELECT coalesce(json_agg(t."tag"), '[]'::json)::text FROM "RunTag" t WHERE t."runId" = r."id")`
      : Prisma.sql`(SELECT json_group_array(t."tag") FROM "RunTag" t WHERE t."runId" = r."id")`;
  return db().$queryRaw<SummaryRow[]>`
    SELECT r."id", r."name", r."engine", r."engineVersion", r."model", r."gpu", r."gpuCount", r."measuredAt",
      r."createdAt", r."pointCount", r."sourceFormat", r."seriesId", r."singleStreamTokS", r."singleStreamDerived",
      r."peakTokS", r."peakConcurrency", r."peakRequestRate", ${tagsJson} AS "tagsJson"
    FROM "Run" r WHERE r."id" IN (${Prisma.join(ids)})`;
}

function summaryOf(row: SummaryRow): RunSummary {
  return {
    id: row.id,
    url: `/runs/${row.id}`,
    name: row.name,
    engine: row.engine,
    engine_version: row.engineVersion,
    model: row.model,
    hardware: { gpu: row.gpu, gpu_count: row.gpuCount },
    tags: (JSON.parse(row.tagsJson) as string[]).sort(),
    measured_at: row.measuredAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    point_count: row.pointCount,
    source_format: row.sourceFormat,
    series_id: row.seriesId,
    single_stream:
      row.singleStreamTokS === null ? null : { output_tok_s: row.singleStreamTokS, derived: row.singleStreamDerived },
    peak:
      row.peakTokS === null
        ? null
        : {
            output_tok_s: row.peakTokS,
            concurrency: row.peakConcurrency,
            request_rate:
              row.peakRequestRate === null ? null : row.peakRequestRate === "inf" ? "inf" : Number(row.peakRequestRate),
          },
  };
}

/** The history rows of these runs, in this order (a run deleted meanwhile is left out). */
export async function summariesInOrder(ids: readonly string[]): Promise<RunSummary[]> {
  const rows = await readSummaries(ids);
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id) => {
    const row = byId.get(id);
    return row ? [summaryOf(row)] : [];
  });
}

/** Every run, counted by the database's triggers into one row (the migration history_at_scale). */
export async function countRuns(): Promise<number> {
  const row = await db().runTotal.findUnique({ where: { id: 1 } });
  return row?.runs ?? 0;
}

/** The values the history filters offer, each with its count. */
export async function listFilterOptions(): Promise<{
  engines: string[];
  models: string[];
  gpus: string[];
  tags: string[];
}> {
  const [engines, models, gpus, tags] = await Promise.all([
    distinctValues("Run", "engine"),
    distinctValues("Run", "model"),
    distinctValues("Run", "gpu"),
    distinctValues("RunTag", "tag"),
  ]);
  return { engines, models, gpus, tags };
}

/**
 * The distinct values of an indexed column, in order, by hopping through its index: each step asks for the
 * smallest value above the last one, an index seek. It costs one seek per distinct value whatever the number of
 * rows, where GROUP BY reads the whole index (40 ms at a million runs). The same SQL runs on both databases.
 */
async function distinctValues(table: "Run" | "RunTag", column: "engine" | "model" | "gpu" | "tag"): Promise<string[]> {
  const t = Prisma.raw(`"${table}"`);
  const c = Prisma.raw(`"${column}"`);
  const rows = await db().$queryRaw<{ value: string | null }[]>`
    WITH RECURSIVE v(value) AS (
      SELECT min(${c}) FROM ${t}
      UNION ALL
      SELECT (SELECT min(${c}) FROM ${t} WHERE ${c} > v.value) FROM v WHERE v.value IS NOT NULL
    )
    SELECT value FROM v WHERE value IS NOT NULL`;
  return rows.map((row) => row.value).filter((value): value is string => value !== null);
}
