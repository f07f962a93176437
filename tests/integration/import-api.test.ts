/**
 * Every supported tool's files through POST /api/runs and back out of GET /api/runs/{id}, against the real
 * database: the numbers the files state, at the load levels they were filed under, with their provenance.
 */
import fs from "node:fs";
import path from "node:path";
import { zipSync } from "fflate";
import { beforeEach, describe, expect, it } from "vitest";
import { GET as getRun } from "@/app/api/runs/[id]/route";
import { POST as postRun } from "@/app/api/runs/route";
import { BASE, clearDatabase, counts, FIXTURES, idContext, noContext } from "./helpers";

type Json = Record<string, unknown>;
type Point = Record<string, unknown> & { sources?: Record<string, string> };

const fixture = (relative: string) => fs.readFileSync(path.join(FIXTURES, relative));
const fixtureJson = (relative: string) => JSON.parse(fixture(relative).toString("utf8")) as Json;

function folderFiles(relative: string): string[] {
  return fs
    .readdirSync(path.join(FIXTURES, relative), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name !== "SOURCE.txt")
    .map((entry) => path.relative(FIXTURES, path.join(entry.parentPath, entry.name)))
    .sort();
}

async function upload(files: string[], fields: Record<string, string> = {}, query = ""): Promise<Response> {
  const form = new FormData();
  for (const file of files) form.append("file", new Blob([fixture(file)]), file);
  for (const [key, value] of Object.entries(fields)) form.set(key, value);
  return postRun(new Request(`${BASE}/api/runs${query}`, { method: "POST", body: form }), noContext);
}

async function uploadOk(
  files: string[],
  fields: Record<string, string> = {},
  query = "",
): Promise<{ id: string; runs?: { id: string; name: string }[] }> {
  const response = await upload(files, fields, query);
  const body = (await response.json()) as Json;
  expect(response.status, JSON.stringify(body)).toBe(201);
  return body as { id: string; runs?: { id: string; name: string }[] };
}

async function fetchRun(id: string): Promise<Json & { results: Point[]; warnings: string[]; metadata: Json }> {
  const response = await getRun(new Request(`${BASE}/api/runs/${id}`), idContext(id));
  expect(response.status).toBe(200);
  return (await response.json()) as Json & { results: Point[]; warnings: string[]; metadata: Json };
}

beforeEach(async () => {
  await clearDatabase();
});

describe("vLLM", () => {
  it("imports bench serve --save-result with the context the person supplies", async () => {
    const file = "vllm/bench_serve_v0.25.1.json";
    const source = fixtureJson(file);
    const { id } = await uploadOk([file], { engine: "vllm", engine_version: "0.25.1", gpu: "L4", gpu_count: "1" });
    const run = await fetchRun(id);
    expect(run).toMatchObject({
      engine: "vllm",
      engine_version: "0.25.1",
      model: "facebook/opt-125m",
      source_format: "vllm-bench-serve",
    });
    expect(run.results).toHaveLength(1);
    const point = run.results[0]!;
    expect(point).toMatchObject({
      concurrency: 2,
      request_rate: "inf",
      completed: 8,
      failed: 0,
      output_throughput: source.output_throughput,
      mean_tpot_ms: source.mean_tpot_ms,
      p99_ttft_ms: source.p99_ttft_ms,
      std_itl_ms: source.std_itl_ms,
    });
    expect(point.sources).toMatchObject({
      output_throughput: "output_throughput",
      concurrency: "max_concurrency",
      mean_tpot_ms: "mean_tpot_ms",
    });
  });

  it("stores a bench serve file that states no engine as engine unknown, and says so", async () => {
    // vLLM's `backend` is the client's API style ("vllm", "openai-chat"), not the server: it is never read as one.
    const response = await upload(["vllm/bench_serve_v0.25.1.json"]);
    const body = (await response.json()) as { id: string; engine: string };
    expect(response.status, JSON.stringify(body)).toBe(201);
    expect(body.engine).toBe("unknown");
    const run = await fetchRun(body.id);
    expect(run.engine).toBe("unknown");
    // The automatic name leaves out what nothing said.
    expect(run.name).toBe("opt-125m");
  });

  it("reads the engine from the launch command's program, the person's word winning", async () => {
    const command = "CUDA_VISIBLE_DEVICES=0 vllm serve facebook/opt-125m --max-num-seqs 4";
    const fromCommand = await uploadOk(["vllm/bench_serve_v0.25.1.json"], { command });
    expect((await fetchRun(fromCommand.id)).engine).toBe("vllm");
    await clearDatabase();
    const typed = await uploadOk(["vllm/bench_serve_v0.25.1.json"], { command, engine: "vllm-fork" });
    expect((await fetchRun(typed.id)).engine).toBe("vllm-fork");
  });

  it("previews where the engine came from", async () => {
    const preview = async (files: string[], fields: Record<string, string> = {}) => {
      const response = await upload(files, fields, "?dry_run=1");
      expect(response.status).toBe(200);
      const body = (await response.json()) as {
        runs: { document: Json; engine_from: string | null; missing: string[]; valid: boolean }[];
      };
      return body.runs[0]!;
    };
    const vllm = "vllm/bench_serve_v0.25.1.json";
    expect(await preview([vllm])).toMatchObject({
      engine_from: "not_stated",
      valid: true,
      document: { engine: "unknown" },
    });
    expect((await preview([vllm])).missing).toContain("engine");
    expect(
      await preview([vllm], { command: "python3 -m vllm.entrypoints.openai.api_server --model facebook/opt-125m" }),
    ).toMatchObject({ engine_from: "command", document: { engine: "vllm" } });
    expect(await preview([vllm], { engine: "sglang" })).toMatchObject({
      engine_from: "person",
      document: { engine: "sglang" },
    });
    // An SGLang bench_serving file of `--backend sglang` spoke SGLang's own /generate: the file says SGLang.
    const sglang = await preview(["sglang/llama_3_3_70b_online_output.jsonl"], { fragments: "0,1,2,3,4" });
    expect(sglang).toMatchObject({ engine_from: "file", document: { engine: "sglang" } });
    // A servebench/v1 document's engine is its own.
    expect((await preview(["servebench/vllm-tp8-baseline.json"])).engine_from).toBeNull();
  });

  it("refuses a launch command and a file that name different engines, naming both, and stores nothing", async () => {
    const before = await counts();
    const response = await upload(["sglang/llama_3_3_70b_online_output.jsonl"], {
      fragments: "0,1,2,3,4",
      model: "meta-llama/Llama-3.3-70B-Instruct",
      command: "vllm serve meta-llama/Llama-3.3-70B-Instruct --tensor-parallel-size 8",
    });
    expect(response.status).toBe(422);
    const body = (await response.json()) as { error: { issues: { path: string; message: string }[] } };
    expect(body.error.issues).toEqual([
      {
        path: "engine",
        message:
          "the launch command starts vLLM (vllm serve) but the file says SGLang; fill in the engine that served the benchmark",
      },
    ]);
    expect(await counts()).toEqual(before);
    // The person's word settles it.
    const settled = await uploadOk(["sglang/llama_3_3_70b_online_output.jsonl"], {
      fragments: "0,1,2,3,4",
      model: "meta-llama/Llama-3.3-70B-Instruct",
      command: "vllm serve meta-llama/Llama-3.3-70B-Instruct --tensor-parallel-size 8",
      engine: "vllm",
    });
    expect((await fetchRun(settled.id)).engine).toBe("vllm");
  });

  it("stores a level whose requests all failed as no data, with a warning", async () => {
    const { id } = await uploadOk(["vllm/bench_serve_all_requests_failed_v0.25.1.json"], { engine: "vllm" });
    const run = await fetchRun(id);
    expect(run.results).toHaveLength(1);
    const point = run.results[0]!;
    expect(point.output_throughput).toBeUndefined();
    expect(point.mean_ttft_ms).toBeUndefined();
    expect(point).toMatchObject({ request_rate: "inf", completed: 0, failed: 8 });
    expect(run.warnings.join(" ")).toMatch(/no request completed \(8 failed\)/);
  });

  it("refuses a sweep folder whose files disagree, then stores it split", async () => {
    const files = folderFiles("vllm/vllm_sweep_v0.25.1");
    expect(files).toHaveLength(6);
    const before = await counts();
    const refused = await upload(files);
    expect(refused.status).toBe(422);
    const error = (
      (await refused.json()) as {
        error: { code: string; message: string; issues: { path: string; message: string }[] };
      }
    ).error;
    expect(error.code).toBe("conflicting_files");
    expect(error.issues.map((issue) => issue.path)).toEqual(["files", "files", "files"]);
    expect(error.issues[0]!.message).toMatch(
      /^The files hold 2 different configurations: --max-num-seqs 4 .*--max-num-seqs 8/,
    );
    expect(await counts()).toEqual(before);

    const preview = (await (await upload(files, {}, "?dry_run=1")).json()) as {
      fragments: { file: string }[];
      duplicates: { file: string; same_as: string }[];
      runs: unknown[];
    };
    // summary.json repeats the run=N.json payloads: its fragments are dropped as duplicates.
    expect(preview.fragments.map((fragment) => fragment.file)).toEqual(files.filter((file) => file.includes("run=")));
    expect(preview.duplicates.every((duplicate) => duplicate.file.endsWith("summary.json"))).toBe(true);
    expect(preview.duplicates).toHaveLength(4);

    const created = await uploadOk(files, { split: "1" });
    expect(created.runs?.map((run) => run.name)).toEqual([
      "vLLM · opt-125m (--max-num-seqs 4, repeat 1)",
      "vLLM · opt-125m (--max-num-seqs 4, repeat 2)",
      "vLLM · opt-125m (--max-num-seqs 8, repeat 1)",
      "vLLM · opt-125m (--max-num-seqs 8, repeat 2)",
    ]);
    const first = await fetchRun(created.runs![0]!.id);
    const payload = fixtureJson(
      "vllm/vllm_sweep_v0.25.1/SERVE--max_num_seqs=4-BENCH--max_concurrency=2-num_prompts=8/run=0.json",
    );
    expect(first.flags).toEqual({ "--max-num-seqs": "4" });
    expect(first.results).toEqual([
      expect.objectContaining({
        concurrency: 2,
        output_throughput: payload.output_throughput,
        mean_e2el_ms: payload.mean_e2el_ms,
      }),
    ]);
    expect(first.source_format).toBe("vllm-sweep");
  });

  it("keeps one of two repeats when the person picks it", async () => {
    const dir = "vllm/vllm_sweep_v0.25.1/SERVE--max_num_seqs=8-BENCH--max_concurrency=2-num_prompts=8";
    const files = [`${dir}/run=0.json`, `${dir}/run=1.json`];
    const { id, runs } = await uploadOk(files, { fragments: "1" });
    expect(runs).toBeUndefined();
    const run = await fetchRun(id);
    expect(run.results[0]!.output_throughput).toBe(fixtureJson(files[1]!).output_throughput);
    expect(run.metadata.source_files).toBe(files[1]);
  });
});

describe("SGLang", () => {
  it("imports a bench_serving JSONL, splitting the two workloads it holds and asking for the model it lacks", async () => {
    const file = "sglang/llama_3_3_70b_online_output.jsonl";
    const lines = fixture(file)
      .toString("utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Json);
    const refused = await upload([file], { engine: "sglang" });
    expect(refused.status).toBe(422);
    const conflict = ((await refused.json()) as { error: { code: string; issues: { message: string }[] } }).error;
    expect(conflict.code).toBe("conflicting_files");
    expect(conflict.issues[0]!.message).toBe(
      "The files hold 2 different configurations: random 1024→1024 " +
        `[${file} (line 1, line 2, line 3, line 4, line 5)]; sharegpt [${file} (line 6, line 7)].`,
    );

    const missing = await upload([file], { engine: "sglang", split: "1" });
    expect(missing.status).toBe(422);
    expect(
      ((await missing.json()) as { error: { issues: { path: string }[] } }).error.issues.map((issue) => issue.path),
    ).toEqual(["model", "model"]);

    const { runs } = await uploadOk([file], {
      engine: "sglang",
      model: "Llama-3.3-70B-Instruct",
      gpu: "H200",
      gpu_count: "8",
      split: "1",
    });
    expect(runs).toHaveLength(2);
    const random = await fetchRun(runs![0]!.id);
    const sharegpt = await fetchRun(runs![1]!.id);
    expect(random.source_format).toBe("sglang-bench-serving");
    expect(random.workload).toEqual({ dataset: "random", input_len: 1024, output_len: 1024 });
    expect(random.results.map((point) => point.request_rate)).toEqual(
      lines.slice(0, 5).map((line) => line.request_rate),
    );
    expect(random.results.map((point) => point.output_throughput)).toEqual(
      lines.slice(0, 5).map((line) => line.output_throughput),
    );
    expect(random.results[0]!.median_ttft_ms).toBe(lines[0]!.median_ttft_ms);
    expect(random.results[0]!.sources?.mean_e2el_ms).toBe("mean_e2e_latency_ms");
    expect(sharegpt.results.map((point) => point.output_throughput)).toEqual(
      lines.slice(5).map((line) => line.output_throughput),
    );
  });

  it("reads a bare Infinity request rate", async () => {
    const { id } = await uploadOk(["sglang/deepseek_dp_mla_output.jsonl"], { engine: "sglang", model: "DeepSeek-V3" });
    const run = await fetchRun(id);
    expect(run.results).toEqual([
      expect.objectContaining({ request_rate: "inf", output_throughput: 12412.394674113431, completed: 10000 }),
    ]);
  });
});

describe("the other tools", () => {
  it("GuideLLM: one point per benchmark, TPOT from inter_token_latency_ms", async () => {
    const file = "guidellm/guidellm_report_v2.json";
    const { id } = await uploadOk([file], { engine: "vllm" });
    const run = await fetchRun(id);
    expect(run.source_format).toBe("guidellm");
    expect(run.model).toBe("e2e-mock-model");
    expect(run.results.map((point) => point.request_rate)).toEqual([2, 4]);
    for (const point of run.results) {
      expect(point.sources?.mean_tpot_ms).toMatch(/inter_token_latency_ms/);
      expect(point.sources?.output_throughput).toMatch(/output_tokens_per_second/);
    }
  });

  it("AIPerf: throughput and TPOT from profile_export_aiperf.json at its concurrency", async () => {
    const file = "aiperf/v0.11.0-sweep-concurrency_64/profile_export_aiperf.json";
    const source = fixtureJson(file);
    const { id } = await uploadOk([file], { engine: "vllm" });
    const run = await fetchRun(id);
    expect(run.source_format).toBe("aiperf");
    expect(run.results).toHaveLength(1);
    expect(run.results[0]).toMatchObject({
      concurrency: 64,
      output_throughput: (source.output_token_throughput as Json).avg,
    });
    expect(run.results[0]!.sources?.mean_tpot_ms).toMatch(/^inter_token_latency/);
  });

  it("AIPerf CSVs in the tool's artifact folders: one run, a point per folder's level", async () => {
    // Real aiperf 0.11 CSVs of one concurrency sweep, each placed in the folder a single `aiperf profile` run
    // names after its settings (<model>-openai-chat-concurrency<N>/).
    const levels = [16, 32, 64, 128];
    const form = new FormData();
    for (const level of levels) {
      const csv = fixture(`aiperf/v0.11.0-sweep-csv/concurrency_${level}/profile_export_aiperf.csv`);
      form.append(
        "file",
        new Blob([csv]),
        `artifacts/qwen3-4b-openai-chat-concurrency${level}/profile_export_aiperf.csv`,
      );
    }
    form.set("model", "qwen3-4b");
    form.set("engine", "vllm");
    const response = await postRun(new Request(`${BASE}/api/runs`, { method: "POST", body: form }), noContext);
    const body = (await response.json()) as Json;
    expect(response.status, JSON.stringify(body)).toBe(201);
    expect(body.runs).toBeUndefined();
    const run = await fetchRun(body.id as string);
    expect(run.source_format).toBe("aiperf");
    expect(run.results.map((point) => [point.concurrency, point.output_throughput, point.mean_ttft_ms])).toEqual([
      [16, 1792.23, 28.74],
      [32, 2923.53, 36.17],
      [64, 4283.22, 51.44],
      [128, 4826.84, 92.81],
    ]);
    expect(run.results[2]!.sources?.concurrency).toBe("from the folder name qwen3-4b-openai-chat-concurrency64");
    expect(run.results[2]!.sources?.mean_tpot_ms).toBe("Inter Token Latency (ms).avg");
  });

  it("a whole artifact folder: the files no tool's format matches are left out and said, the results stored", async () => {
    const form = new FormData();
    for (const level of [16, 32]) {
      const folder = `artifacts/qwen3-4b-openai-chat-concurrency${level}`;
      const csv = fixture(`aiperf/v0.11.0-sweep-csv/concurrency_${level}/profile_export_aiperf.csv`);
      form.append("file", new Blob([csv]), `${folder}/profile_export_aiperf.csv`);
      // What else such a folder holds: the tool's log, the prompts it sent, a plot.
      form.append("file", new Blob(["2026-12-05 INFO starting profile\n"]), `${folder}/logs/aiperf.log`);
      form.append(
        "file",
        new Blob([JSON.stringify({ data: [{ payload: [{ messages: [] }] }] })]),
        `${folder}/inputs.json`,
      );
    }
    form.append(
      "file",
      new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0])]),
      "artifacts/plot.png",
    );
    form.set("model", "qwen3-4b");
    form.set("engine", "vllm");
    const response = await postRun(new Request(`${BASE}/api/runs`, { method: "POST", body: form }), noContext);
    const body = (await response.json()) as Json;
    expect(response.status, JSON.stringify(body)).toBe(201);
    const run = await fetchRun(body.id as string);
    expect(run.results.map((point) => point.concurrency)).toEqual([16, 32]);
    expect(run.warnings).toContain(
      'Left out 5 files of the upload that no tool\'s results format matches: "artifacts/qwen3-4b-openai-chat-concurrency16/logs/aiperf.log", "artifacts/qwen3-4b-openai-chat-concurrency16/inputs.json", "artifacts/qwen3-4b-openai-chat-concurrency32/logs/aiperf.log", "artifacts/qwen3-4b-openai-chat-concurrency32/inputs.json", "artifacts/plot.png".',
    );
  });

  it("a folder of files no tool's format matches is refused, naming the first, and stores nothing", async () => {
    const form = new FormData();
    form.append("file", new Blob(["INFO starting\n"]), "artifacts/logs/aiperf.log");
    form.append("file", new Blob([JSON.stringify({ hello: "world" })]), "artifacts/inputs.json");
    const before = await counts();
    const response = await postRun(new Request(`${BASE}/api/runs`, { method: "POST", body: form }), noContext);
    expect(response.status).toBe(422);
    const error = ((await response.json()) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe("unsupported_format");
    expect(error.message).toMatch(/^"artifacts\/logs\/aiperf\.log" is not a results file servebench recognizes/);
    expect(await counts()).toEqual(before);
  });

  it("AIPerf sweep folder zipped: concurrency_<N> folders, each CSV beside its JSON, yield the JSON's points", async () => {
    const zip = zipSync({
      "concurrency_64/profile_export_aiperf.csv": new Uint8Array(
        fixture("aiperf/v0.11.0-sweep-csv/concurrency_64/profile_export_aiperf.csv"),
      ),
      "concurrency_64/profile_export_aiperf.json": new Uint8Array(
        fixture("aiperf/v0.11.0-sweep-concurrency_64/profile_export_aiperf.json"),
      ),
      "concurrency_128/profile_export_aiperf.csv": new Uint8Array(
        fixture("aiperf/v0.11.0-sweep-csv/concurrency_128/profile_export_aiperf.csv"),
      ),
    });
    const form = new FormData();
    form.append("file", new Blob([zip]), "sweep.zip");
    form.set("model", "qwen3-4b");
    const preview = await postRun(new Request(`${BASE}/api/runs?dry_run=1`, { method: "POST", body: form }), noContext);
    const body = (await preview.json()) as {
      fragments: { file: string; levels: string[] }[];
      skipped: { file: string; reason: string }[];
      conflicts: string[];
    };
    expect(preview.status, JSON.stringify(body)).toBe(200);
    expect(body.fragments.map((fragment) => [fragment.file, fragment.levels])).toEqual([
      ["sweep.zip/concurrency_64/profile_export_aiperf.json", ["C=64"]],
      ["sweep.zip/concurrency_128/profile_export_aiperf.csv", ["C=128"]],
    ]);
    expect(body.skipped).toEqual([
      {
        file: "sweep.zip/concurrency_64/profile_export_aiperf.csv",
        format: "aiperf",
        reason: "the JSON summary in the same folder states the same figures unrounded, with the run's configuration",
      },
    ]);
    // The JSON states its configuration (model, workload), the CSV none: they are two configurations.
    expect(body.conflicts.length).toBeGreaterThan(0);
  });

  it("AIPerf CSV with the level given per file (form field level), and a level the file contradicts refused", async () => {
    const csv = "aiperf/run1/profile_export_aiperf.csv";
    const named = "results/profile_export_aiperf.csv";
    const form = new FormData();
    form.append("file", new Blob([fixture(csv)]), named);
    form.append("level", `${named}=concurrency:100`);
    form.set("model", "openai/gpt-oss-20b");
    const created = await postRun(new Request(`${BASE}/api/runs`, { method: "POST", body: form }), noContext);
    const body = (await created.json()) as Json;
    expect(created.status, JSON.stringify(body)).toBe(201);
    const run = await fetchRun(body.id as string);
    expect(run.results).toHaveLength(1);
    expect(run.results[0]).toMatchObject({ concurrency: 100, mean_ttft_ms: 2343.22, completed: 89, failed: 11 });
    expect(run.results[0]!.sources?.concurrency).toBe("given with the upload (level)");

    // A raw body is one file: its level needs no name.
    const raw = await postRun(
      new Request(`${BASE}/api/runs?level=rate:2.5`, {
        method: "POST",
        headers: { "content-type": "text/csv" },
        body: fixture("aiperf/v0.11.0-sweep-csv/concurrency_16/profile_export_aiperf.csv"),
      }),
      noContext,
    );
    // The CSV names no model and a raw body has no form to say it: the run is refused for that alone.
    const rawBody = (await raw.json()) as { error: { code: string; issues: { path: string }[] } };
    expect(raw.status).toBe(422);
    expect(rawBody.error.issues.map((issue) => issue.path)).toEqual(["model"]);

    const json = "aiperf/v0.11.0-sweep-concurrency_64/profile_export_aiperf.json";
    const before = await counts();
    const conflict = await upload([json], { level: `${json}=concurrency:8` });
    const error = ((await conflict.json()) as { error: { code: string; message: string; issues: unknown[] } }).error;
    expect(conflict.status).toBe(422);
    expect(error.code).toBe("validation_failed");
    expect(error.message).toContain("was given concurrency 8, but the file states its own load level: concurrency 64");
    expect(error.issues).toEqual([
      { path: "level", message: `"${json}" states its own load level; concurrency 8 was given` },
    ]);
    expect(await counts()).toEqual(before);
  });

  it("LLMPerf: seconds become ms and its inter-token latency is not TPOT", async () => {
    const file = "llmperf/summary/groq_70b.json";
    const source = fixtureJson(file);
    const { id } = await uploadOk([file], { engine: "groq" });
    const point = (await fetchRun(id)).results[0]!;
    expect(point.concurrency).toBe(source.num_concurrent_requests);
    expect(point.mean_ttft_ms).toBeCloseTo((source.results_ttft_s_mean as number) * 1000, 9);
    expect(point.mean_e2el_per_token_ms).toBeCloseTo((source.results_inter_token_latency_s_mean as number) * 1000, 9);
    expect(point.mean_tpot_ms).toBeUndefined();
    expect(point.output_throughput).toBe(source.results_mean_output_throughput_token_per_s);
  });

  it("inference-perf: a zipped report folder becomes one run with a point per stage", async () => {
    const folder = "inference-perf/kubecon-na-2025-vllm";
    const entries = Object.fromEntries(
      folderFiles(folder).map((file) => [path.relative(folder, file), new Uint8Array(fixture(file))]),
    );
    const zip = zipSync(entries);
    const response = await postRun(
      new Request(`${BASE}/api/runs?filename=kubecon.zip`, {
        method: "POST",
        headers: { "content-type": "application/zip" },
        body: zip,
      }),
      noContext,
    );
    // The model is not in the files: the raw body has no form to supply it.
    expect(response.status).toBe(422);

    const form = new FormData();
    form.append("file", new Blob([zip]), "kubecon.zip");
    form.set("engine", "vllm");
    form.set("model", "meta-llama/Meta-Llama-3-8B-Instruct");
    const created = await postRun(new Request(`${BASE}/api/runs`, { method: "POST", body: form }), noContext);
    expect(created.status).toBe(201);
    const run = await fetchRun(((await created.json()) as { id: string }).id);
    expect(run.source_format).toBe("inference-perf");
    const rates = [0, 1, 2, 3, 4, 5, 6].map(
      (stage) =>
        (fixtureJson(`${folder}/stage_${stage}_lifecycle_metrics.json`).load_summary as Json).requested_rate as number,
    );
    expect(run.results.map((point) => point.request_rate)).toEqual([...rates].sort((a, b) => a - b));
    const stage0 = fixtureJson(`${folder}/stage_0_lifecycle_metrics.json`);
    const ttft0 = (((stage0.successes as Json).latency as Json).time_to_first_token as Json).mean as number;
    expect(run.results.find((point) => point.request_rate === rates[0])!.mean_ttft_ms).toBeCloseTo(ttft0 * 1000, 9);
  });

  it("TensorRT-LLM: trtllm-bench --report_json", async () => {
    const { id } = await uploadOk(["trtllm/hand-made-streaming.json"]);
    const run = await fetchRun(id);
    expect(run.engine).toBe("tensorrt-llm");
    expect(run.source_format).toBe("trtllm-bench");
    expect(run.results[0]!.output_throughput).toBeGreaterThan(0);
    expect(run.results[0]!.sources?.output_throughput).toMatch(/system_output_throughput_tok_s/);
  });

  it("llm-d benchmark report in YAML", async () => {
    const { id } = await uploadOk(["llm-d-benchmark-report/br_v0_2_example.yaml"]);
    const run = await fetchRun(id);
    expect(run.source_format).toBe("llm-d-benchmark-report");
    expect(run.results[0]!.sources?.output_throughput).toMatch(/output_token_rate/);
  });

  it("refuses a file no tool writes, listing the supported formats", async () => {
    const form = new FormData();
    form.append("file", new Blob([JSON.stringify({ hello: "world" })]), "notes.json");
    const before = await counts();
    const response = await postRun(new Request(`${BASE}/api/runs`, { method: "POST", body: form }), noContext);
    expect(response.status).toBe(422);
    const error = ((await response.json()) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe("unsupported_format");
    expect(error.message).toMatch(
      /^"notes\.json" is not a results file servebench recognizes\. Supported: servebench\/v1 JSON; /,
    );
    for (const tool of [
      "vLLM",
      "SGLang",
      "GuideLLM",
      "AIPerf",
      "LLMPerf",
      "inference-perf",
      "trtllm-bench",
      "llama-bench",
      "llm-d",
    ]) {
      expect(error.message).toContain(tool);
    }
    expect(await counts()).toEqual(before);
  });

  it("takes JSON lines as a raw body", async () => {
    const response = await postRun(
      new Request(`${BASE}/api/runs`, {
        method: "POST",
        headers: { "content-type": "application/x-ndjson" },
        body: fixture("vllm/hand-made-append-result.jsonl"),
      }),
      noContext,
    );
    const body = (await response.json()) as Json;
    // --append-result lines carry no engine and a raw body has no form to say it: stored as engine unknown.
    expect(response.status, JSON.stringify(body)).toBe(201);
    expect(body.engine).toBe("unknown");
  });
});
