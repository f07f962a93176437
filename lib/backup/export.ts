/**
 * The export (GET /api/export): every stored record as one JSON line, streamed a line at a time, so an export
 * of any size is never held whole.
 */
import { allComparisons } from "@/lib/comparisons/queries";
import { COMPARISON_FORMAT } from "@/lib/ingest/restore-lines";
import { allRunDocuments } from "@/lib/runs/read";
import { allSeriesExports } from "./series";

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

/** The export lines as the bytes of a response body, each ended by a newline, read as the client takes them. */
export function exportBody(): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const lines = exportLines();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await lines.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(`${next.value}\n`));
    },
    async cancel() {
      await lines.return(undefined);
    },
  });
}
