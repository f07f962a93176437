import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { ResultPoint } from "@/lib/document/schema";
import { AppError } from "@/lib/errors";
import { decodeText } from "@/lib/formats/decode";
import { readUploads } from "@/lib/formats/import";
import { planRuns } from "@/lib/formats/import-plan";
import { FORMAT_PARSERS } from "@/lib/formats/registry";
import { vllmBenchServeParser } from "@/lib/formats/vllm";
import { vllmBenchRsMultiTurnParser } from "@/lib/formats/vllm-bench-rs";
import { FIXTURES_DIR, readFixtureJson } from "./fixtures";

type Doc = {
  results: ResultPoint[];
  not_imported?: { field: string; value: unknown; reason: string }[];
  metadata?: Record<string, unknown>;
  model?: string;
  name?: string;
  measured_at?: string;
  source_format: string;
};

const FILE = "vllm-bench-rs/hand-made-multi-turn.json";

function upload(file: string, bytes = fs.readFileSync(path.join(FIXTURES_DIR, file))): Doc[] {
  const parsed = readUploads([{ name: file, bytes }], FORMAT_PARSERS);
  return planRuns(parsed, { split: true }).runs.map((run) => run.document as unknown as Doc);
}

describe("vllm-bench (Rust) --multi-turn result", () => {
  const raw = readFixtureJson(FILE) as Record<string, unknown>;
  const docs = upload(FILE);
  const point = docs[0]!.results[0]!;

  it("is claimed by the multi-turn parser, not by vLLM bench serve's (whose figure names it shares)", () => {
    const source = decodeText(FILE, JSON.stringify(raw));
    expect(vllmBenchRsMultiTurnParser.detect(source)).toBe(true);
    expect(vllmBenchServeParser.detect(source)).toBe(false);
    expect(docs).toHaveLength(1);
    expect(docs[0]?.source_format).toBe("vllm-bench-rs");
  });

  it("files the point at multi_turn_concurrency, the configured cap, never a measured rate", () => {
    expect(point.concurrency).toBe(16);
    expect(point.request_rate).toBeUndefined();
    expect(point.sources?.concurrency).toBe("multi_turn_concurrency");
    // 95 turns over 61.84 s: 1.536 turns/s, a measurement, kept as request_throughput only.
    expect(point.request_throughput).toBeCloseTo(95 / 61.84, 12);
  });

  it("keeps the overall figures over every turn under vLLM's definitions", () => {
    expect(point).toMatchObject({
      completed: 95,
      failed: 1,
      duration_s: 61.84,
      total_input_tokens: 205568,
      total_output_tokens: 12160,
      mean_ttft_ms: 182.41,
      median_ttft_ms: 154.73,
      p90_ttft_ms: 310.2,
      p99_ttft_ms: 521.66,
      mean_tpot_ms: 24.87,
      p99_tpot_ms: 31.04,
      mean_itl_ms: 24.62,
      mean_e2el_ms: 3340.9,
      p99_e2el_ms: 4296.02,
    });
    // 12,160 output tokens over 61.84 s.
    expect(point.output_throughput).toBeCloseTo(12160 / 61.84, 9);
    expect(point.output_throughput).toBeCloseTo(196.636, 3);
    expect(point.total_token_throughput).toBeCloseTo((205568 + 12160) / 61.84, 9);
  });

  it("keeps the conversation settings and figures in the metadata, and the model and time", () => {
    const doc = docs[0]!;
    expect(doc.model).toBe("Qwen/Qwen3-8B");
    expect(doc.measured_at).toBe("2026-03-14T09:21:07.000Z");
    expect(doc.metadata).toMatchObject({
      backend: "openai-chat",
      num_conversations: 32,
      turns_per_conversation: 3,
      inter_turn_delay_ms: 500,
      conversations_completed: 31,
      conversations_failed: 1,
      avg_turns_completed: 95 / 32,
      avg_conversation_duration_ms: 11384.5,
    });
  });

  it("reports the per-turn breakdown, the failed turn's record, input_throughput and the p50s", () => {
    const report = docs[0]?.not_imported ?? [];
    const fields = report.map((entry) => entry.field);
    expect(fields).toContain("per_turn_metrics[*].output_throughput");
    expect(report.find((entry) => entry.field === "per_turn_metrics[*].mean_ttft_ms")?.reason).toMatch(/per-turn/);
    expect(report.find((entry) => entry.field === "failed_requests[0].prompt_len")).toMatchObject({ value: 3328 });
    expect(report.find((entry) => entry.field === "input_throughput")?.reason).toMatch(/history/);
    expect(report.find((entry) => entry.field === "p50_ttft_ms")).toMatchObject({ value: 154.73 });
  });

  it("reads JSON lines (--append-result) as one point per line", () => {
    const second = { ...raw, multi_turn_concurrency: 32, date: "2026-03-14T09:24:40Z" };
    const text = `${JSON.stringify(raw)}\n${JSON.stringify(second)}`;
    const parsed = readUploads([{ name: "sweep.jsonl", bytes: Buffer.from(text) }], FORMAT_PARSERS);
    const plan = planRuns(parsed, { split: false });
    expect(plan.conflicts).toEqual([]);
    const doc = plan.runs[0]?.document as unknown as Doc;
    expect(doc.results.map((entry) => entry.concurrency)).toEqual([16, 32]);
  });

  it("refuses a result whose multi_turn_concurrency is missing, naming the field", () => {
    const file = "vllm-bench-rs/hand-made-broken-no-concurrency.json";
    try {
      upload(file);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe("validation_failed");
      expect((error as AppError).message).toMatch(/multi_turn_concurrency: multi_turn_concurrency must be/);
    }
  });
});

describe("a real vllm-bench --multi-turn result (PegaInfer, Qwen3.5-4B TP2, tests/fixtures/vllm-bench-rs/pegainfer-qwen35-tp2)", () => {
  const REAL = "vllm-bench-rs/pegainfer-qwen35-tp2/qwen35-tp2-phase2a-multiturn.json";
  const docs = upload(REAL);
  const point = docs[0]!.results[0]!;

  it("is one run with one point at multi_turn_concurrency 4", () => {
    expect(docs).toHaveLength(1);
    expect(docs[0]!.source_format).toBe("vllm-bench-rs");
    expect(point.concurrency).toBe(4);
    expect(point.sources?.concurrency).toBe("multi_turn_concurrency");
  });

  it("keeps the overall figures as written", () => {
    expect(point).toMatchObject({
      completed: 44,
      failed: 0,
      duration_s: 13.864881841999999,
      total_input_tokens: 12496,
      total_output_tokens: 1056,
      request_throughput: 3.173485392909272,
      output_throughput: 76.16364942982253,
      total_token_throughput: 977.4335010160559,
      mean_ttft_ms: 727.5413035227273,
      p99_ttft_ms: 899.2532077699999,
      mean_tpot_ms: 21.70376772332016,
      p90_tpot_ms: 22.558429852173912,
      median_itl_ms: 20.5969695,
      p99_e2el_ms: 1406.7637406399997,
    });
  });

  it("keeps the model, the --metadata pairs and the conversation settings", () => {
    expect(docs[0]!.model).toBe("qwen35-tp2-phase2a");
    expect(docs[0]!.metadata).toMatchObject({
      server_commit: "8829189992d9290f1aa128fb00950dd854f43211",
      client_commit: "2b7fcbf52782f8729fd6ce6c9ab803617d72897b",
      gpu: "2x_RTX_3090_sm86",
      tp_size: "2",
      num_conversations: 12,
      avg_turns_completed: 3.6666666666666665,
    });
  });

  it("reports the per-turn breakdown it does not import", () => {
    const fields = (docs[0]!.not_imported ?? []).map((entry) => entry.field);
    expect(fields.some((field) => field.startsWith("per_turn_metrics"))).toBe(true);
  });
});
