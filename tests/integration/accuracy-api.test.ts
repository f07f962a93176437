/**
 * Accuracy beside speed, through the real routes and database: an evaluator's results file uploaded with the
 * benchmark files of its run, attached to a stored run afterwards, refused where it cannot go, and kept through
 * export and restore.
 */
import fs from "node:fs";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { GET as exportAll } from "@/app/api/export/route";
import { POST as restore } from "@/app/api/restore/route";
import { POST as postAccuracy } from "@/app/api/runs/[id]/accuracy/route";
import { GET as getRun } from "@/app/api/runs/[id]/route";
import { POST as postRun } from "@/app/api/runs/route";
import type { AccuracyScore } from "@/lib/document/schema";
import { BASE, clearDatabase, counts, FIXTURES, idContext, noContext } from "./helpers";

const LM_EVAL_GSM8K = "accuracy/lm-eval/v0.4.2-dev_gsm8k_Meta-Llama-3-8B-Instruct.json";
const LIGHTEVAL_MATH = "accuracy/lighteval/git-ed08481_math_500_OpenRS-GRPO.json";
const VLLM_BENCH = "vllm/bench_serve_v0.25.1.json";

const fixture = (relative: string) => fs.readFileSync(path.join(FIXTURES, relative));

type StoredRun = { id: string; accuracy?: AccuracyScore[]; warnings: string[]; results: unknown[] };

function form(files: string[], fields: Record<string, string> = {}): FormData {
  const body = new FormData();
  for (const file of files) body.append("file", new Blob([fixture(file)]), path.basename(file));
  for (const [key, value] of Object.entries(fields)) body.set(key, value);
  return body;
}

async function upload(files: string[], fields: Record<string, string> = {}): Promise<Response> {
  return postRun(new Request(`${BASE}/api/runs`, { method: "POST", body: form(files, fields) }), noContext);
}

async function fetchRun(id: string): Promise<StoredRun> {
  const response = await getRun(new Request(`${BASE}/api/runs/${id}`), idContext(id));
  expect(response.status).toBe(200);
  return (await response.json()) as StoredRun;
}

async function attach(id: string, body: BodyInit, contentType?: string): Promise<Response> {
  return postAccuracy(
    new Request(`${BASE}/api/runs/${id}/accuracy`, {
      method: "POST",
      body,
      ...(contentType ? { headers: { "content-type": contentType } } : {}),
    }),
    idContext(id),
  );
}

async function errorOf(response: Response): Promise<{ code: string; message: string }> {
  return ((await response.json()) as { error: { code: string; message: string } }).error;
}

const VLLM_CONTEXT = { engine: "vllm", gpu: "L4", gpu_count: "1" };

beforeEach(clearDatabase);

describe("accuracy results uploaded with their run", () => {
  it("stores lm-eval's gsm8k scores, each with its filter, stderr, few-shot count and the harness's settings", async () => {
    const response = await upload([VLLM_BENCH, LM_EVAL_GSM8K], VLLM_CONTEXT);
    const created = (await response.json()) as { id: string };
    expect(response.status, JSON.stringify(created)).toBe(201);
    const run = await fetchRun(created.id);
    expect(run.results.length).toBeGreaterThan(0);
    const scores = run.accuracy!;
    expect(scores.map((score) => [score.task, score.metric, score.filter])).toEqual([
      ["gsm8k", "exact_match", "flexible-extract"],
      ["gsm8k", "exact_match", "strict-match"],
    ]);
    const strict = scores[1]!;
    expect(strict.evaluator).toBe("lm-eval");
    expect(strict.value).toBe(0.7558756633813495);
    expect(strict.stderr).toBe(0.011832404674077592);
    expect(strict.num_fewshot).toBe(5);
    // The bench file served a small test model; the lm-eval file evaluated Llama 3 8B: said, not refused.
    expect(run.warnings).toContain(
      `v0.4.2-dev_gsm8k_Meta-Llama-3-8B-Instruct.json: the accuracy results evaluated meta-llama/Meta-Llama-3-8B-Instruct, but the run serves ${(run as unknown as { model: string }).model}; check they belong to this run`,
    );
  });

  it("refuses accuracy files without a benchmark run, saying how to attach them, and stores nothing", async () => {
    const response = await upload([LM_EVAL_GSM8K]);
    expect(response.status).toBe(422);
    const error = await errorOf(response);
    expect(error.code).toBe("no_results");
    expect(error.message).toContain("holds accuracy scores but no benchmark results");
    expect(error.message).toContain("POST /api/runs/{id}/accuracy");
    expect((await counts()).runs).toBe(0);
  });

  it("refuses accuracy files in an upload that makes several runs: which run they belong to is not guessed", async () => {
    const response = await upload(
      [
        "vllm/vllm_sweep_v0.25.1/SERVE--max_num_seqs=4-BENCH--max_concurrency=2-num_prompts=8/run=0.json",
        "servebench/vllm-tp8-baseline.json",
        LM_EVAL_GSM8K,
      ],
      { split: "1", engine: "vllm" },
    );
    expect(response.status).toBe(422);
    expect((await errorOf(response)).message).toMatch(/makes 2 runs and holds accuracy scores/);
    expect((await counts()).runs).toBe(0);
  });
});

describe("POST /api/runs/{id}/accuracy", () => {
  async function storedRun(): Promise<string> {
    const response = await upload([VLLM_BENCH], VLLM_CONTEXT);
    expect(response.status).toBe(201);
    return ((await response.json()) as { id: string }).id;
  }

  it("attaches a lighteval file sent as a JSON body; the same file again replaces its score, not adds one", async () => {
    const id = await storedRun();
    const first = await attach(id, fixture(LIGHTEVAL_MATH), "application/json");
    expect(first.status, await first.clone().text()).toBe(200);
    const run = (await first.json()) as StoredRun;
    expect(run.accuracy).toEqual([
      {
        evaluator: "lighteval",
        task: "custom|math_500",
        metric: "extractive_match",
        value: 0.838,
        stderr: 0.016494123566423505,
        // config_tasks: higher_is_better true, effective_num_docs 500.
        higher_is_better: true,
        num_fewshot: 0,
        samples: 500,
      },
    ]);
    const again = await attach(id, form([LIGHTEVAL_MATH, LM_EVAL_GSM8K]));
    expect(again.status, await again.clone().text()).toBe(200);
    expect(
      (await fetchRun(id)).accuracy!.map((score) => `${score.evaluator} ${score.task} ${score.filter ?? ""}`),
    ).toEqual(["lighteval custom|math_500 ", "lm-eval gsm8k flexible-extract", "lm-eval gsm8k strict-match"]);
  });

  it("refuses a file that is no accuracy results, naming it, and changes nothing", async () => {
    const id = await storedRun();
    const before = await fetchRun(id);
    const response = await attach(id, form([VLLM_BENCH]));
    expect(response.status).toBe(422);
    const error = await errorOf(response);
    expect(error.code).toBe("unsupported_format");
    expect(error.message).toContain('"bench_serve_v0.25.1.json" is not an accuracy results file');
    expect(await fetchRun(id)).toEqual(before);
  });

  it("answers 404 for a run that does not exist", async () => {
    const response = await attach("no-such-run", fixture(LM_EVAL_GSM8K), "application/json");
    expect(response.status).toBe(404);
  });
});

describe("export and restore", () => {
  it("keeps a run's benchmark figures and accuracy scores exactly", async () => {
    const response = await upload([VLLM_BENCH, LM_EVAL_GSM8K], VLLM_CONTEXT);
    const { id } = (await response.json()) as { id: string };
    expect((await attach(id, fixture(LIGHTEVAL_MATH), "application/json")).status).toBe(200);
    const before = await fetchRun(id);
    expect(before.accuracy).toHaveLength(3);
    const exported = await (await exportAll(new Request(`${BASE}/api/export`), noContext)).text();
    await clearDatabase();
    const restored = await restore(
      new Request(`${BASE}/api/restore`, {
        method: "POST",
        headers: { "content-type": "application/x-ndjson" },
        body: exported,
      }),
      noContext,
    );
    expect(restored.status, await restored.clone().text()).toBe(200);
    expect(await fetchRun(id)).toEqual(before);
  });
});
