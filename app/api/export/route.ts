import { apiRoute } from "@/lib/http/route";
import { allRunDocuments } from "@/lib/runs/queries";

export const dynamic = "force-dynamic";

/**
 * Every run as servebench/v1 JSON lines, streamed. Uploading the file (POST /api/runs, application/x-ndjson)
 * restores the runs into any servebench, keeping their ids and upload times.
 */
export const GET = apiRoute(async () => {
  const encoder = new TextEncoder();
  const runs = allRunDocuments();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await runs.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(`${JSON.stringify(next.value)}\n`));
    },
    async cancel() {
      await runs.return(undefined);
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
