/**
 * A run as the rows that store it: its Run row (with the search and headline columns), its series, its tags and
 * its points, in the column order of the statements that insert them (lib/runs/run-writes.ts).
 */

import { type RowsTable, rowsInsert, type TableColumn } from "@/lib/db/row-inserts";
import { headline } from "@/lib/document/derived";
import type { RunDocument } from "@/lib/document/normalize";
import type { ResultPoint } from "@/lib/document/schema";
import type { Prisma } from "@/lib/generated/prisma/client";
import { newSeriesId, type SeriesIdentity, seriesIdentity } from "@/lib/series/key";
import { type SearchColumns, searchColumnsOf } from "./derived-columns";
import { pointInserts } from "./point-inserts";

function headlineColumns(points: readonly ResultPoint[]) {
  const figures = headline(points);
  return {
    singleStreamTokS: figures.single_stream?.output_tok_s ?? null,
    singleStreamDerived: figures.single_stream?.derived ?? false,
    peakTokS: figures.peak?.output_tok_s ?? null,
    peakConcurrency: figures.peak?.concurrency ?? null,
    peakRequestRate: figures.peak?.request_rate == null ? null : String(figures.peak.request_rate),
  };
}

/** A Run column and what it holds, in the order the insert names them. */
const RUN_COLUMNS: readonly TableColumn[] = [
  { name: "id", kind: "text" },
  { name: "name", kind: "text" },
  { name: "engine", kind: "text" },
  { name: "engineVersion", kind: "text" },
  { name: "model", kind: "text" },
  { name: "gpu", kind: "text" },
  { name: "gpuCount", kind: "integer" },
  { name: "gpuMemoryMib", kind: "integer" },
  { name: "command", kind: "text" },
  { name: "flagsJson", kind: "text" },
  { name: "envJson", kind: "text" },
  { name: "workloadJson", kind: "text" },
  { name: "speculativeJson", kind: "text" },
  { name: "modelSizeJson", kind: "text" },
  { name: "accuracyJson", kind: "text" },
  { name: "serverStartupS", kind: "double" },
  { name: "notes", kind: "text" },
  { name: "metadataJson", kind: "text" },
  { name: "warningsJson", kind: "text" },
  { name: "notImportedJson", kind: "text" },
  { name: "contentHash", kind: "text" },
  { name: "sourceFormat", kind: "text" },
  { name: "measuredAt", kind: "timestamp" },
  { name: "createdAt", kind: "timestamp" },
  { name: "updatedAt", kind: "timestamp" },
  { name: "sortAt", kind: "timestamp" },
  { name: "searchText", kind: "text" },
  { name: "searchPairs", kind: "text" },
  { name: "searchTriples", kind: "text" },
  { name: "singleStreamTokS", kind: "double" },
  { name: "singleStreamDerived", kind: "boolean" },
  { name: "peakTokS", kind: "double" },
  { name: "peakConcurrency", kind: "integer" },
  { name: "peakRequestRate", kind: "text" },
  { name: "pointCount", kind: "integer" },
  { name: "seriesName", kind: "text" },
  { name: "seriesOverride", kind: "boolean" },
  { name: "gitCommit", kind: "text" },
  { name: "gitBranch", kind: "text" },
  { name: "ciUrl", kind: "text" },
  // The row carries its series' key; the column gets the id of the series with that key (inserted just before).
  { name: "seriesId", kind: "text", select: (key) => `(SELECT s."id" FROM "Series" s WHERE s."key" = ${key})` },
];

export const RUN_TABLE: RowsTable = { table: "Run", columns: RUN_COLUMNS };
/** A run's series, created with its first run; a series already there is left as it is. */
export const SERIES_TABLE: RowsTable = {
  table: "Series",
  columns: [
    { name: "id", kind: "text" },
    { name: "key", kind: "text" },
    { name: "name", kind: "text" },
    { name: "explicit", kind: "boolean" },
    { name: "createdAt", kind: "timestamp" },
  ],
  ignoreConflictOn: ["key"],
};
export const TAG_TABLE: RowsTable = {
  table: "RunTag",
  columns: [
    { name: "runId", kind: "text" },
    { name: "tag", kind: "text" },
  ],
};

/**
 * A run to store: its document, the id and upload time it gets, and its content hash (null: stored without); its
 * search columns and series when they were made already (else made from the document here).
 */
export interface RunCreate {
  id: string;
  document: RunDocument;
  createdAt: Date;
  contentHash: string | null;
  search?: SearchColumns | undefined;
  series?: SeriesIdentity | undefined;
}

/** The run's row, its columns in RUN_COLUMNS' order (seriesId as its series' key). */
export function runRowValues({
  id,
  document: doc,
  createdAt,
  contentHash,
  search: made,
  series,
}: RunCreate): unknown[] {
  const measuredAt = doc.measured_at ? new Date(doc.measured_at) : null;
  const headlineFigures = headlineColumns(doc.results);
  const search = made ?? searchColumnsOf(doc);
  const row: Record<string, unknown> = {
    id,
    name: doc.name,
    engine: doc.engine,
    engineVersion: doc.engine_version ?? null,
    model: doc.model,
    gpu: doc.hardware?.gpu ?? null,
    gpuCount: doc.hardware?.gpu_count ?? null,
    gpuMemoryMib: doc.hardware?.gpu_memory_mib ?? null,
    command: doc.command ?? null,
    flagsJson: JSON.stringify(doc.flags),
    envJson: JSON.stringify(doc.env),
    workloadJson: doc.workload ? JSON.stringify(doc.workload) : null,
    speculativeJson: doc.speculative ? JSON.stringify(doc.speculative) : null,
    modelSizeJson: doc.model_size ? JSON.stringify(doc.model_size) : null,
    accuracyJson: doc.accuracy ? JSON.stringify(doc.accuracy) : null,
    serverStartupS: doc.server_startup_s ?? null,
    notes: doc.notes ?? null,
    metadataJson: JSON.stringify(doc.metadata),
    warningsJson: JSON.stringify(doc.warnings),
    notImportedJson: JSON.stringify(doc.not_imported),
    contentHash,
    sourceFormat: doc.source_format,
    measuredAt,
    createdAt,
    updatedAt: createdAt,
    sortAt: measuredAt ?? createdAt,
    ...search,
    ...headlineFigures,
    pointCount: doc.results.length,
    seriesName: doc.series ?? null,
    seriesOverride: doc.series_override === true,
    gitCommit: doc.git_commit ?? null,
    gitBranch: doc.git_branch ?? null,
    ciUrl: doc.ci_url ?? null,
    seriesId: (series ?? seriesIdentity(doc)).key,
  };
  return RUN_COLUMNS.map((column) => row[column.name] ?? null);
}

/** The series rows of a batch of runs: one per series key, with a new id (kept only when the key is new). */
export function seriesRowsOf(creates: readonly RunCreate[]): unknown[][] {
  const series = new Map<string, unknown[]>();
  for (const create of creates) {
    const identity = create.series ?? seriesIdentity(create.document);
    if (!series.has(identity.key))
      series.set(identity.key, [newSeriesId(), identity.key, identity.name, identity.explicit, create.createdAt]);
  }
  return [...series.values()];
}

/**
 * Runs with their series, tags and points, as one transaction's statements (built anew for each attempt): one
 * statement a table for the whole batch (lib/db/row-inserts.ts). A series is created with the first run of its
 * key; when two writers create it at once, the unique key keeps one and both runs join it.
 */
export function batchStatements(creates: readonly RunCreate[]): Prisma.PrismaPromise<number>[] {
  return [
    ...rowsInsert(SERIES_TABLE, seriesRowsOf(creates)),
    ...rowsInsert(RUN_TABLE, creates.map(runRowValues)),
    ...rowsInsert(
      TAG_TABLE,
      creates.flatMap((create) => create.document.tags.map((tag) => [create.id, tag])),
    ),
    ...pointInserts(creates.map((create) => ({ runId: create.id, results: create.document.results }))),
  ];
}
