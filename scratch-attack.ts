import { performance } from "node:perf_hooks";
import { zipSync } from "fflate";
import { prepareUpload } from "@/lib/runs/ingest";
import { normalizeRunDocument } from "@/lib/runs/normalize";

function line(i: number): string {
  return JSON.stringify({ backend: "sglang", dataset_name: "random", request_rate: i + 1, max_concurrency: null, total_input_tokens: 152612, total_output_tokens: 160347, mean_e2e_latency_ms: 7840.6, median_ttft_ms: 85.7, median_itl_ms: 13.6, output_throughput: 537.4, random_input_len: 1024, random_output_len: 1024, duration: 298.3, completed: 300 });
}
async function jsonl(n: number) {
  const text = Array.from({ length: n }, (_, i) => line(i)).join("\n");
  const req = new Request("http://x/api/runs?dry_run=1", { method: "POST", headers: { "content-type": "application/x-ndjson" }, body: text });
  const t = performance.now();
  try { await prepareUpload(req, 100_000_000); } catch (e) { console.log("err", (e as Error).message.slice(0, 200)); }
  console.log(`jsonl ${n} lines ${(text.length / 1e6).toFixed(1)} MB: ${(performance.now() - t).toFixed(0)} ms`);
}
function command(n: number) {
  const cmd = `vllm serve m --a${"_".repeat(n)} 1`;
  const t = performance.now();
  normalizeRunDocument({ format: "servebench/v1", engine: "vllm", model: "m", command: cmd, results: [{ concurrency: 1 }] });
  console.log(`command with ${n} underscores (${cmd.length} chars): ${(performance.now() - t).toFixed(0)} ms`);
}
async function zips(count: number) {
  const big = new Uint8Array(199_000_000).fill(32);
  big[0] = 123; // not JSON anyway
  const zip = zipSync({ "a.json": big }, { level: 9 });
  const form = new FormData();
  for (let i = 0; i < count; i++) form.append("file", new Blob([zip]), `z${i}.zip`);
  const req = new Request("http://x/api/runs?dry_run=1", { method: "POST", body: form });
  const t = performance.now();
  const before = process.memoryUsage().rss;
  let peak = before;
  const timer = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 20);
  try { await prepareUpload(req, 100_000_000); } catch (e) { console.log("err", (e as Error).message.slice(0, 200)); }
  clearInterval(timer);
  console.log(`${count} zips of ${(zip.length / 1e3).toFixed(0)} kB: ${(performance.now() - t).toFixed(0)} ms, maxRSS ${(process.resourceUsage().maxRSS / 1e3).toFixed(0)} MB`);
}
const which = process.argv[2];
const n = Number(process.argv[3]);
void (async () => {
if (which === "jsonl") await jsonl(n);
if (which === "cmd") command(n);
if (which === "zips") await zips(n);
})();
