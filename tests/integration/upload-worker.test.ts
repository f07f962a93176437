/**
 * The upload worker gives back the memory a big upload made it grow: once such a task is answered it is replaced
 * by a fresh one (a new thread starts at a few MB), while ordinary uploads keep reusing the same worker.
 */
import { describe, expect, it } from "vitest";
import { POST as postRun } from "@/app/api/runs/route";
import { runUploadTask, uploadWorkersStarted } from "@/lib/ingest/upload-pool";
import { BASE, fixtureText, noContext, SEED_FILES } from "./helpers";

async function preview(body: string, contentType = "application/json"): Promise<number> {
  const response = await postRun(
    new Request(`${BASE}/api/runs?dry_run=1`, { method: "POST", headers: { "content-type": contentType }, body }),
    noContext,
  );
  await response.arrayBuffer();
  return response.status;
}

describe("the upload worker's memory", () => {
  it("is reused for small uploads and replaced after one that grew its heap", async () => {
    const small = fixtureText(SEED_FILES.vllm);
    expect(await preview(small)).toBe(200);
    const first = uploadWorkersStarted();
    expect(first).toBeGreaterThanOrEqual(1);
    for (let index = 0; index < 3; index++) expect(await preview(small)).toBe(200);
    expect(uploadWorkersStarted()).toBe(first);

    // 60,000 SGLang load levels as JSON lines (about 25 MB): parsing and planning them takes the worker's heap far
    // past WORKER_RECYCLE_HEAP_MB.
    // A real SGLang bench_serving line, its request rate changed on each line: 60,000 load levels of one run.
    const real = JSON.parse(fixtureText("sglang/llama_3_3_70b_online_output.jsonl").split("\n")[0]!) as Record<
      string,
      unknown
    >;
    const line = (index: number) => JSON.stringify({ ...real, request_rate: index + 1 });
    const big = Array.from({ length: 60_000 }, (_, index) => line(index)).join("\n");
    // Given to the worker as the route would (the tests' body limit is 1 MB): a preview of it.
    const outcome = await runUploadTask({
      kind: "preview",
      url: `${BASE}/api/runs?dry_run=1`,
      contentType: "application/x-ndjson",
      bytes: new TextEncoder().encode(big),
    });
    expect(outcome.ok, JSON.stringify(outcome).slice(0, 500)).toBe(true);
    expect(await preview(small)).toBe(200);
    expect(uploadWorkersStarted()).toBe(first + 1);
  });
});
