/**
 * GET /api/runs/{id}?format=llm-d through the real routes and database: a stored run comes out as llm-d benchmark
 * reports v0.2.1 that the upstream JSON Schema accepts, and uploading those reports stores a run with the same
 * figures, load levels, engine, version, model and GPU.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import Ajv2020 from "ajv/dist/2020";
import { beforeEach, describe, expect, it } from "vitest";
import { GET as getRun } from "@/app/api/runs/[id]/route";
import { POST as postRun } from "@/app/api/runs/route";
import { LATENCY_KEYS } from "@/lib/document/schema";
import { BASE, clearDatabase, FIXTURES, idContext, noContext } from "./helpers";

type Json = Record<string, unknown>;
type Point = Record<string, unknown>;

const schema = JSON.parse(
  fs.readFileSync(path.join(FIXTURES, "llm-d-benchmark-report", "br_v0_2_1_json_schema.json"), "utf8"),
) as object;
const ajv = new Ajv2020({ allErrors: true, strict: false });
ajv.addFormat("date-time", (value: string) => !Number.isNaN(Date.parse(value)));
const validateReport = ajv.compile(schema);

async function uploadFiles(files: { name: string; bytes: Uint8Array }[], fields: Record<string, string> = {}) {
  const form = new FormData();
  for (const file of files) form.append("file", new Blob([file.bytes as Uint8Array<ArrayBuffer>]), file.name);
  for (const [key, value] of Object.entries(fields)) form.set(key, value);
  const response = await postRun(new Request(`${BASE}/api/runs`, { method: "POST", body: form }), noContext);
  const body = (await response.json()) as { id: string };
  expect(response.status, JSON.stringify(body)).toBe(201);
  return body.id;
}

async function get(id: string, query = ""): Promise<{ status: number; body: unknown; headers: Headers }> {
  const response = await getRun(new Request(`${BASE}/api/runs/${id}${query}`), idContext(id));
  return { status: response.status, body: await response.json(), headers: response.headers };
}

/** The figures a round trip keeps, by load level. */
function figures(points: Point[]): Point[] {
  const keys = [
    "concurrency",
    "request_rate",
    "completed",
    "failed",
    "duration_s",
    "output_throughput",
    "total_token_throughput",
    "request_throughput",
    ...LATENCY_KEYS,
  ];
  return points.map((point) => Object.fromEntries(keys.filter((key) => key in point).map((key) => [key, point[key]])));
}

beforeEach(async () => {
  await clearDatabase();
});

describe("GET /api/runs/{id}?format=llm-d", () => {
  it("a GuideLLM sweep → one valid report per level → uploaded again, the same run", async () => {
    const file = "guidellm/hand-made-sweep-v0.3.json";
    const id = await uploadFiles([{ name: file, bytes: fs.readFileSync(path.join(FIXTURES, file)) }], {
      engine: "vllm",
      engine_version: "0.11.0",
      model: "Qwen/Qwen3-8B",
      gpu: "H100",
      gpu_count: "2",
    });
    const original = (await get(id)).body as Json & { results: Point[] };
    expect(original.results.length).toBeGreaterThan(1);

    const exported = await get(id, "?format=llm-d&download=1");
    expect(exported.status).toBe(200);
    expect(exported.headers.get("content-disposition")).toBe(`attachment; filename="servebench-run-${id}-llm-d.json"`);
    const reports = exported.body as Json[];
    expect(reports).toHaveLength(original.results.length);
    for (const report of reports) expect(validateReport(report), JSON.stringify(validateReport.errors)).toBe(true);

    const again = await uploadFiles(
      reports.map((report, index) => ({
        name: `report-${index + 1}.json`,
        bytes: new TextEncoder().encode(JSON.stringify(report, null, 2)),
      })),
    );
    const back = (await get(again)).body as Json & { results: Point[]; hardware: Json };
    expect(back.source_format).toBe("llm-d-benchmark-report");
    expect(figures(back.results)).toEqual(figures(original.results));
    expect(back).toMatchObject({ engine: "vllm", engine_version: "0.11.0", model: "Qwen/Qwen3-8B" });
    expect(back.hardware).toEqual({ gpu: "H100", gpu_count: 2 });
  });

  it("every figure of a run round-trips: goodput, token totals, the server's metrics, percentiles outside the schema's, repeats", async () => {
    const cases: { files: string[]; context: Record<string, string> }[] = [
      {
        files: ["vllm/bench_serve_v0.25.1.json"],
        context: { engine: "vllm", model: "Qwen/Qwen3-0.6B", gpu: "L4", gpu_count: "1" },
      },
      { files: ["servebench/vllm-tp8-baseline.json"], context: {} },
      {
        files: [
          "inference-perf/hand-made-2026-report/stage_0_lifecycle_metrics.json",
          "inference-perf/hand-made-2026-report/stage_0_prometheus_metrics.json",
        ],
        context: { engine: "vllm", model: "m", gpu: "H100", gpu_count: "1" },
      },
    ];
    for (const { files, context } of cases) {
      await clearDatabase();
      const id = await uploadFiles(
        files.map((name) => ({ name, bytes: fs.readFileSync(path.join(FIXTURES, name)) })),
        context,
      );
      const original = (await get(id)).body as Json & { results: Point[] };
      const reports = (await get(id, "?format=llm-d")).body as Json[];
      for (const report of reports) expect(validateReport(report), JSON.stringify(validateReport.errors)).toBe(true);
      await clearDatabase();
      const again = await uploadFiles(
        reports.map((report, index) => ({
          name: `report-${index + 1}.json`,
          bytes: new TextEncoder().encode(JSON.stringify(report)),
        })),
      );
      const back = (await get(again)).body as Json & { results: Point[] };
      const withoutSources = (points: Point[]) => points.map(({ sources: _sources, ...figures }) => figures);
      expect(withoutSources(back.results), files.join(", ")).toEqual(withoutSources(original.results));
      expect(back).toMatchObject({ name: original.name, engine: original.engine, model: original.model });
      if (original.workload) expect(back.workload).toEqual(original.workload);
      if (original.command) expect(back.command).toEqual(original.command);
    }
  });

  it("$/Mtok with a GPU-hour price; a format or price it cannot read is a 400", async () => {
    const file = "vllm/bench_serve_v0.25.1.json";
    const id = await uploadFiles([{ name: file, bytes: fs.readFileSync(path.join(FIXTURES, file)) }], {
      engine: "vllm",
      model: "Qwen/Qwen3-0.6B",
      gpu: "L4",
      gpu_count: "1",
    });
    const run = (await get(id)).body as { results: Point[] };
    const tokS = run.results[0]!.output_throughput as number;
    const [report] = (await get(id, "?format=llm-d&price=2.5")).body as Json[];
    const extension = (report as { scenario: { load: { native: { config: { servebench: Json } } } } }).scenario.load
      .native.config.servebench;
    expect(extension.figures).toMatchObject({ gpu_hour_price_usd: 2.5 });
    expect((extension.figures as Json).cost_per_million_output_tokens_usd).toBeCloseTo(2.5 / ((tokS * 3600) / 1e6), 9);
    for (const query of ["?format=csv", "?format=llm-d&price=-1", "?format=llm-d&price=abc"]) {
      const answer = await get(id, query);
      expect(answer.status, query).toBe(400);
      expect((answer.body as { error: { code: string } }).error.code).toBe("bad_request");
    }
  });

  it("servebench export-run RUN --format llm-d -o FILE writes the reports the API answers", async () => {
    const file = "vllm/bench_serve_v0.25.1.json";
    const id = await uploadFiles([{ name: file, bytes: fs.readFileSync(path.join(FIXTURES, file)) }], {
      engine: "vllm",
      model: "Qwen/Qwen3-0.6B",
    });
    // The run route itself behind a loopback HTTP server, as `next start` would serve it.
    const server = http.createServer((request, response) => {
      const url = new URL(request.url ?? "/", BASE);
      const runId = /^\/api\/runs\/([^/]+)$/.exec(url.pathname)?.[1] ?? "";
      void getRun(new Request(url), idContext(decodeURIComponent(runId))).then(async (answer) => {
        response.writeHead(answer.status, { "content-type": "application/json" });
        response.end(Buffer.from(await answer.arrayBuffer()));
      });
    });
    server.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "servebench-export-run-"));
    const cli = (args: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile(
          process.execPath,
          [path.join(__dirname, "..", "..", "bin", "servebench.mjs"), ...args],
          { cwd: dir, timeout: 60_000 },
          (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
        );
      });
    try {
      const written = await cli(["export-run", id, "--format", "llm-d", "-o", "reports.json", "--url", origin]);
      expect(written, written.stderr).toMatchObject({ code: 0 });
      expect(written.stderr).toBe("servebench export-run: wrote 1 llm-d report(s) to reports.json\n");
      const reports = JSON.parse(fs.readFileSync(path.join(dir, "reports.json"), "utf8")) as Json[];
      expect(reports).toEqual((await get(id, "?format=llm-d")).body);
      const printed = await cli(["export-run", `${origin}/runs/${id}`]);
      expect(JSON.parse(printed.stdout)).toEqual((await get(id)).body);
      const missing = await cli(["export-run", "missingRun01", "--format", "llm-d", "--url", origin]);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain("servebench export-run: run missingRun01:");
      expect((await cli(["export-run", id, "--format", "csv", "--url", origin])).code).toBe(2);
    } finally {
      server.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
