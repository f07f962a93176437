import { prepareUpload } from "@/lib/runs/ingest";
const kind = process.argv[2];
const size = 100_000_000;
function body(): string {
  if (kind === "zeros") return `[${"0,".repeat(size / 2 - 2)}0]`;
  if (kind === "objects") return `[${"{},".repeat(size / 3 - 2)}{}]`;
  if (kind === "arrays") return `[${"[],".repeat(size / 3 - 2)}[]]`;
  if (kind === "string") return `{"format":"servebench/v1","notes":"${"a".repeat(size - 40)}"}`;
  if (kind === "lines") return Array.from({ length: size / 12 }, () => '{"a":[0,0]}').join("\n");
  throw new Error(kind);
}
void (async () => {
  const text = body();
  const req = new Request("http://x/api/runs?dry_run=1", { method: "POST", headers: { "content-type": "application/json" }, body: text });
  const t = performance.now();
  try { await prepareUpload(req, 100_000_000); } catch (e) { console.log("err", (e as Error).message.slice(0, 120)); }
  console.log(`${kind}: ${(performance.now() - t).toFixed(0)} ms, maxRSS ${(process.resourceUsage().maxRSS / 1e3).toFixed(0)} MB`);
})();
