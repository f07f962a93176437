/**
 * Server figures and per-request results through the API against the real database: stored and returned as
 * uploaded, refused with the field named when they break the format's rules (nothing stored), left out of a
 * comparison's load but in its runs export, in the comparison's CSV, and an inference-perf report folder
 * importing a stage's client and server figures into one point.
 */
import fs from "node:fs";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { GET as getCompareCsv } from "@/app/api/compare/csv/route";
import { GET as getCompareRuns } from "@/app/api/compare/runs/route";
import { GET as getRun } from "@/app/api/runs/[id]/route";
import { POST as postRun } from "@/app/api/runs/route";
import { loadComparison } from "@/lib/comparisons/loader";
import { parseCompareView } from "@/lib/comparisons/view";
import { BASE, clearDatabase, counts, FIXTURES, idContext, jsonRequest, noContext } from "./helpers";

const REQUESTS = {
  total: 4,
  start_ms: [0, 1.5, 700.25, 702],
  queue_ms: [0, 0, 12.5, 0],
  ttft_ms: [101.25, 99.5, 380.75, null],
  tpot_ms: [20.125, 19.875, 20, null],
  e2el_ms: [721.5, 718.25, 1000.5, null],
  input_tokens: [12, 15, 9, null],
  output_tokens: [32, 32, 32, null],
  error: [null, null, null, 0],
  errors: ["HTTP 500 Internal Server Error: out of memory"],
};

const SERVER = {
  server_running_requests_mean: 7.5,
  server_running_requests_max: 8,
  server_waiting_requests_mean: 3.25,
  server_waiting_requests_max: 9,
  server_kv_cache_usage_mean: 0.62,
  server_kv_cache_usage_max: 0.97,
  server_preemptions: 2,
  server_prefix_cache_hit_rate: 0.41,
  server_spec_acceptance_rate: 0.68,
  server_spec_acceptance_length: 3.04,
  server_mean_ttft_ms: 180.5,
  server_mean_tpot_ms: 19.25,
  server_mean_itl_ms: 18.75,
  server_metrics_samples: 120,
};

function doc(name: string, extra: Record<string, unknown> = {}, top: Record<string, unknown> = {}) {
  return {
    format: "servebench/v1",
    name,
    ...top,
    engine: "vllm",
    model: "m",
    workload: { dataset: "sharegpt", burstiness: 0.5, max_concurrency: 16, seed: 3 },
    results: [
      {
        request_rate: 8,
        completed: 3,
        failed: 1,
        mean_ttft_ms: 193.8,
        percentiles: { ttft: { p75: 240.6, "p99.9": 380.6 } },
        ...SERVER,
        requests: REQUESTS,
        sources: { server_kv_cache_usage_mean: "vllm:kv_cache_usage_perc" },
        ...extra,
      },
    ],
  };
}

async function upload(body: unknown): Promise<Response> {
  return postRun(jsonRequest("/api/runs", "POST", body), noContext);
}

async function stored(id: string): Promise<{ results: Record<string, unknown>[]; workload: unknown }> {
  const response = await getRun(new Request(`${BASE}/api/runs/${id}`), idContext(id));
  return (await response.json()) as { results: Record<string, unknown>[]; workload: unknown };
}

beforeEach(async () => {
  await clearDatabase();
});

describe("server figures and per-request results", () => {
  it("are stored and returned as uploaded, with the generated workload's fields", async () => {
    const response = await upload(doc("detailed"));
    expect(response.status).toBe(201);
    const { id } = (await response.json()) as { id: string };
    const run = await stored(id);
    expect(run.workload).toEqual({ dataset: "sharegpt", burstiness: 0.5, max_concurrency: 16, seed: 3 });
    expect(run.results[0]).toEqual(doc("detailed").results[0]);
  });

  it("refuses per-request columns of different lengths, a bad error index, too many rows and a bad percentile key, naming the field", async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [
        { requests: { ...REQUESTS, e2el_ms: [1, 2] } },
        "results.0.requests.e2el_ms",
        "has 2 entries but ttft_ms has 4: every column has one entry per request",
      ],
      [
        { requests: { ...REQUESTS, error: [null, null, null, 3] } },
        "results.0.requests.error.3",
        "is 3, but errors has 1 entry",
      ],
      [{ requests: { ...REQUESTS, total: 2 } }, "results.0.requests.total", "is 2, fewer than the 4 rows"],
      [
        { requests: { ...REQUESTS, latency_ms: [1, 2, 3, 4] } },
        "results.0.requests.latency_ms",
        'unknown field "latency_ms"',
      ],
      [
        { percentiles: { ttft: { p101: 5 } } },
        "results.0.percentiles.ttft.p101",
        'must be a percentile key such as "p75" or "p99.9"',
      ],
      [
        { server_kv_cache_usage_mean: 62 },
        "results.0.server_kv_cache_usage_mean",
        "must be a share from 0 to 1 (not a percentage)",
      ],
    ];
    for (const [extra, path, message] of cases) {
      const response = await upload(doc("bad", extra));
      expect(response.status, path).toBe(422);
      const body = (await response.json()) as { error: { code: string; issues: { path: string; message: string }[] } };
      expect(body.error.code).toBe("validation_failed");
      expect(body.error.issues, path).toContainEqual({ path, message });
    }
    const rows = 10_001;
    const many = {
      total: rows,
      ttft_ms: new Array(rows).fill(1),
      tpot_ms: new Array(rows).fill(1),
      e2el_ms: new Array(rows).fill(1),
      output_tokens: new Array(rows).fill(1),
    };
    const tooMany = await upload(doc("too many", { requests: many }));
    expect(tooMany.status).toBe(422);
    const body = (await tooMany.json()) as { error: { issues: { path: string; message: string }[] } };
    expect(body.error.issues).toContainEqual({
      path: "results.0.requests.ttft_ms",
      message:
        "at most 10,000 requests per load point: keep an evenly spaced sample of them (servebench bench --save-detailed does, and says so)",
    });
    expect(await counts()).toEqual({ runs: 0, points: 0, tags: 0 });
  });

  it("a run holds at most 100,000 per-request rows in all", async () => {
    const rows = 10_000;
    const column = new Array(rows).fill(1);
    const requests = { total: rows, ttft_ms: column, tpot_ms: column, e2el_ms: column, output_tokens: column };
    const results = Array.from({ length: 11 }, (_, index) => ({ concurrency: index + 1, requests }));
    const response = await upload({ format: "servebench/v1", engine: "vllm", model: "m", results });
    expect(response.status).toBe(422);
    const body = (await response.json()) as { error: { issues: { path: string; message: string }[] } };
    expect(body.error.issues).toEqual([
      {
        path: "results",
        message:
          "holds 110000 per-request rows (`requests`); at most 100000 per run: keep a sample of each point's requests",
      },
    ]);
  });

  it("a comparison loads its runs without per-request rows; its runs export and CSV carry the rest", async () => {
    const ids: string[] = [];
    for (const [name, kv, command] of [
      ["baseline", 0.62, "vllm serve m"],
      ["tuned", 0.31, "vllm serve m --max-num-seqs 512"],
    ] as const) {
      const response = await upload(doc(name, { server_kv_cache_usage_mean: kv }, { command }));
      ids.push(((await response.json()) as { id: string }).id);
    }
    const view = parseCompareView({ runs: ids.join(",") });
    const loaded = await loadComparison(view);
    expect(loaded.runs.map((run) => run.results[0]!.requests)).toEqual([undefined, undefined]);
    expect(loaded.runs[1]!.results[0]!.server_kv_cache_usage_mean).toBe(0.31);

    const exported = await getCompareRuns(new Request(`${BASE}/api/compare/runs?runs=${ids.join(",")}`), noContext);
    const runs = (await exported.json()) as { results: { requests?: unknown }[] }[];
    expect(runs.map((run) => run.results[0]!.requests)).toEqual([REQUESTS, REQUESTS]);

    const csv = await (
      await getCompareCsv(new Request(`${BASE}/api/compare/csv?runs=${ids.join(",")}`), noContext)
    ).text();
    const lines = csv.trimEnd().split("\r\n");
    // Compared as lists, so that a difference shows the rows there are.
    expect(lines.filter((line) => line.startsWith("server_kv_cache_usage_mean,"))).toEqual([
      `server_kv_cache_usage_mean,0-1,rate 8,,8,baseline,${ids[0]},0.62,,,baseline`,
      `server_kv_cache_usage_mean,0-1,rate 8,,8,tuned,${ids[1]},0.31,0.62,-50,`,
    ]);
    expect(lines.filter((line) => line.startsWith("server_preemptions,") && line.includes(ids[1] ?? "?"))).toEqual([
      `server_preemptions,requests,rate 8,,8,tuned,${ids[1]},2,2,0,`,
    ]);
  });
});

describe("inference-perf report folder", () => {
  it("imports each stage's client and server figures into one point", async () => {
    const dir = path.join(FIXTURES, "inference-perf", "kubecon-na-2025-vllm");
    const fields: Record<string, string> = { engine: "vllm", model: "meta-llama/Meta-Llama-3-8B-Instruct" };
    const form = new FormData();
    for (const [key, value] of Object.entries(fields)) form.append(key, value);
    for (const name of fs.readdirSync(dir).sort()) {
      form.append(
        "file",
        new Blob([fs.readFileSync(path.join(dir, name))], { type: "application/json" }),
        `kubecon/${name}`,
      );
    }
    const response = await postRun(new Request(`${BASE}/api/runs`, { method: "POST", body: form }), noContext);
    expect(response.status).toBe(201);
    const { id } = (await response.json()) as { id: string };
    const run = (await stored(id)) as unknown as {
      results: Record<string, number>[];
      warnings: string[];
    };
    expect(run.results).toHaveLength(7);
    const last = run.results[6]!;
    const prometheus = JSON.parse(fs.readFileSync(path.join(dir, "stage_6_prometheus_metrics.json"), "utf8")) as {
      successes: { queue_len: { mean: number }; time_to_first_token: { mean: number } };
    };
    expect(last.request_rate).toBe(183.38);
    expect(last.server_waiting_requests_mean).toBe(prometheus.successes.queue_len.mean);
    expect(last.server_mean_ttft_ms).toBeCloseTo(prometheus.successes.time_to_first_token.mean * 1000, 9);
    // The client's TTFT of the stage stays the client's.
    expect(last.mean_ttft_ms).not.toBe(last.server_mean_ttft_ms);
    expect(last.server_kv_cache_usage_mean).toBeUndefined();
    expect(run.warnings).toContain(
      "inference-perf Prometheus report: successes.kv_cache_usage_percentage not imported: it is 0 while the server completed requests, which is how inference-perf writes a query that found nothing (the metric is not exposed under the name it asked for)",
    );
  });
});
