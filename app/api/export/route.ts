import { allSeriesExports } from "@/lib/backup/series";
import { allComparisons } from "@/lib/comparisons/queries";
import { apiRoute, methodsNotAllowed } from "@/lib/http/route";
import { COMPARISON_FORMAT } from "@/lib/ingest/restore-lines";
import { allRunDocuments } from "@/lib/runs/queries";

export const dynamic = "force-dynamic";

/**
 * Every stored record as one export line: the runs first, then the saved comparisons that name them, then the
 * series someone set, annotated or handled an alert of (the others come back from their runs alone).
 */
async function* exportLines(): AsyncGenerator<string> {
  for await (const run of allRunDocuments()) yield JSON.stringify(run);
  for await (const comparison of allComparisons()) {
    const { url: _url, ...saved } = comparison;
    yield JSON.stringify({ format: COMPARISON_FORMAT, ...saved });
  }
  for await (const series of allSeriesExports()) yield JSON.stringify(series);
}

/**
 * Everything servebench stores, as JSON lines, streamed: every run as its servebench/v1 document (with its id
 * and upload time), then every saved comparison (format servebench/comparison-v1, with its slug), then the series
 * a team set or decided something about (format servebench/series-v1). POST /api/restore restores the file into
 * any servebench, line by line, keeping ids, upload times and slugs.
 */
export const GET = apiRoute(async () => {
  const encoder = new TextEncoder();
  const lines = exportLines();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await lines.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(`${next.value}\n`));
    },
    async cancel() {
      await lines.return(undefined);
    },
  });
  const date = new Date().toISOString().slice(0, 10);
  return new Response(body, {
    headers: {
      "Content-Type": "application/x-ndjson; charset=utf-8",
      "Content-Disposition": `attachment; filename="servebench-export-${date}.jsonl"`,
    },
  });
});

// The methods this address does not take: 405 with a body that says which it does.
export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed(["GET"]);
