import { exportBody } from "@/lib/backup/export";
import { apiRoute, methodsNotAllowed } from "@/lib/http/route";

export const dynamic = "force-dynamic";

/**
 * Everything servebench stores, as JSON lines, streamed: every run as its servebench/v1 document (with its id
 * and upload time), then every saved comparison (format servebench/comparison-v1, with its slug), then the series
 * a team set or decided something about (format servebench/series-v1). POST /api/restore restores the file into
 * any servebench, line by line, keeping ids, upload times and slugs.
 */
export const GET = apiRoute(async () => {
  const body = exportBody();
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
