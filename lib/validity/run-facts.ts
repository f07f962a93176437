/**
 * What the validity checks read off a run: its load levels (repeats merged), its launch flags as numbers and
 * switches, how many GPUs its parallelism uses, and whether it decodes speculatively.
 */
import { formatLoadLevel } from "@/lib/format";
import { type FlagEntry, flagCount, flagObject, flagOn, flagText } from "./flags";
import type { ModelSizeRun } from "./model-size";

/** The fields of a result point the checks read; a stored point and an upload's point both fit. */
export interface CheckablePoint {
  concurrency?: number | null;
  request_rate?: number | "inf" | null;
  completed?: number | null;
  failed?: number | null;
  output_throughput?: number | null;
  total_output_tokens?: number | null;
  mean_tpot_ms?: number | null;
  mean_ttft_ms?: number | null;
  median_ttft_ms?: number | null;
  mean_e2el_ms?: number | null;
  server_waiting_requests_mean?: number | null;
  server_spec_acceptance_length?: number | null;
}

/** A run document as stored or as uploaded: every field the checks read, most of them optional. */
export interface CheckableRun extends ModelSizeRun {
  model: string;
  engine?: string | null;
  hardware?: { gpu?: string; gpu_count?: number; gpu_memory_mib?: number } | null;
  speculative?: { method?: string; draft_model?: string; num_speculative_tokens?: number } | null;
  workload?: { output_len?: number } | null;
  source_format?: string | null;
  results: readonly CheckablePoint[];
}

/** One load level: its repeats merged (counts summed, figures averaged). */
export interface Level {
  label: string;
  kind: "concurrency" | "request_rate";
  /** Concurrency, or requests per second (Infinity for "inf"). */
  load: number;
  completed: number | null;
  failed: number | null;
  total_output_tokens: number | null;
  output_throughput: number | null;
  mean_tpot_ms: number | null;
  mean_ttft_ms: number | null;
  median_ttft_ms: number | null;
  mean_e2el_ms: number | null;
  server_waiting_requests_mean: number | null;
  server_spec_acceptance_length: number | null;
}

const AVERAGED = [
  "output_throughput",
  "mean_tpot_ms",
  "mean_ttft_ms",
  "median_ttft_ms",
  "mean_e2el_ms",
  "server_waiting_requests_mean",
  "server_spec_acceptance_length",
] as const;
const SUMMED = ["completed", "failed", "total_output_tokens"] as const;

function finite(value: number | null | undefined): value is number {
  return typeof value === "number" && Number.isFinite(value);
}

/** The run's load levels, closed-loop (by concurrency) before open-loop (by rate), each from low load to high. */
export function levelsOf(points: readonly CheckablePoint[]): Level[] {
  const byLabel = new Map<string, CheckablePoint[]>();
  for (const point of points) {
    if (point.concurrency == null && point.request_rate == null) continue;
    const label = formatLoadLevel(point);
    const members = byLabel.get(label);
    if (members) members.push(point);
    else byLabel.set(label, [point]);
  }
  const levels = [...byLabel.entries()].map(([label, members]): Level => {
    const first = members[0]!;
    const kind = first.concurrency != null ? "concurrency" : "request_rate";
    const load =
      first.concurrency != null
        ? first.concurrency
        : first.request_rate === "inf"
          ? Number.POSITIVE_INFINITY
          : Number(first.request_rate);
    const level = { label, kind, load } as Level;
    for (const key of AVERAGED) {
      const values = members.map((member) => member[key]).filter(finite);
      level[key] = values.length > 0 ? values.reduce((sum, value) => sum + value, 0) / values.length : null;
    }
    for (const key of SUMMED) {
      const values = members.map((member) => member[key]).filter(finite);
      level[key] = values.length > 0 ? values.reduce((sum, value) => sum + value, 0) : null;
    }
    return level;
  });
  return levels.sort((a, b) => (a.kind === b.kind ? a.load - b.load : a.kind === "concurrency" ? -1 : 1));
}

const TENSOR_PARALLEL = ["--tensor-parallel-size", "--tp", "--tp-size", "-tp"];
const PIPELINE_PARALLEL = ["--pipeline-parallel-size", "--pp", "--pp-size", "-pp"];
const DATA_PARALLEL = ["--data-parallel-size", "--dp", "--dp-size", "-dp"];

export interface Parallelism {
  tensor: number | null;
  pipeline: number | null;
  data: number | null;
  /** SGLang's DP attention: the data-parallel ranks share the tensor-parallel GPUs (dp ≤ tp, GPUs = tp × pp). */
  dp_attention: boolean;
  /** vLLM's expert parallelism: the experts are spread over every data-parallel rank's GPUs. */
  expert_parallel: boolean;
  /** Whether any of the three sizes is stated. */
  stated: boolean;
  /** GPUs the server runs on: tp × pp × dp (× 1 for dp under DP attention). */
  gpus: number;
  /** GPUs one request's weights are spread over: tp × pp, × dp when the experts are spread over the ranks. */
  weight_gpus: number;
  /** "tensor parallel 8", "tensor parallel 4 × data parallel 2". */
  text: string;
}

export function parallelismOf(flags: Readonly<Record<string, FlagEntry>>): Parallelism {
  const tensor = flagCount(flags, TENSOR_PARALLEL);
  const pipeline = flagCount(flags, PIPELINE_PARALLEL);
  const data = flagCount(flags, DATA_PARALLEL);
  const dpAttention = flagOn(flags, "--enable-dp-attention");
  const expertParallel = flagOn(flags, "--enable-expert-parallel");
  const tp = tensor ?? 1;
  const pp = pipeline ?? 1;
  const dp = data ?? 1;
  const parts = [
    tensor !== null ? `tensor parallel ${tensor}` : null,
    pipeline !== null ? `pipeline parallel ${pipeline}` : null,
    data !== null ? `data parallel ${data}${dpAttention ? " (DP attention, on the same GPUs)" : ""}` : null,
  ].filter((part): part is string => part !== null);
  return {
    tensor,
    pipeline,
    data,
    dp_attention: dpAttention,
    expert_parallel: expertParallel,
    stated: parts.length > 0,
    gpus: tp * pp * (dpAttention ? 1 : dp),
    weight_gpus: tp * pp * (expertParallel && !dpAttention ? dp : 1),
    text: parts.join(" × "),
  };
}

export interface Speculation {
  on: boolean;
  /** Most tokens one verification step can yield per stream (1 + drafted tokens); null when not recorded. */
  tokens_per_step: number | null;
  /** Where it was seen: "speculative.method eagle3", "--speculative-config". */
  seen_in: string;
}

const SPECULATIVE_SWITCHES = [
  "--speculative-model",
  "--speculative-draft-model-path",
  "--speculative-draft",
  "--speculative-decoding-mode",
];

/** The drafted tokens per step of vLLM's `--speculative-config '{"method": "eagle3", "num_speculative_tokens": 3}'`. */
function speculativeConfigTokens(text: string): number | null {
  try {
    const parsed = JSON.parse(text) as unknown;
    if (typeof parsed !== "object" || parsed === null) return null;
    const tokens = (parsed as Record<string, unknown>).num_speculative_tokens;
    return typeof tokens === "number" && Number.isInteger(tokens) && tokens >= 1 ? tokens : null;
  } catch {
    return null;
  }
}

/**
 * Whether the server decoded speculatively, and how many tokens one step can yield: the run's `speculative`,
 * vLLM's `--speculative-config` (or the older `--speculative-model`, `--num-speculative-tokens`), SGLang's
 * `--speculative-algorithm` with `--speculative-num-steps` (or `--speculative-num-draft-tokens`), or a scraped
 * acceptance length (the server's own mean tokens per step) when nothing else says how many.
 */
export function speculationOf(run: CheckableRun, levels: readonly Level[]): Speculation {
  const flags = flagObject(run.flags);
  let seenIn: string | null = null;
  let drafted: number | null = null;
  if (run.speculative && Object.keys(run.speculative).length > 0) {
    seenIn = run.speculative.method ? `speculative.method ${run.speculative.method}` : "speculative";
    drafted = run.speculative.num_speculative_tokens ?? null;
  }
  const config = flagText(flags, ["--speculative-config"]);
  if (config !== null) {
    seenIn ??= "--speculative-config";
    drafted ??= speculativeConfigTokens(config);
  }
  const algorithm = flagText(flags, ["--speculative-algorithm"]);
  if (algorithm !== null) {
    seenIn ??= `--speculative-algorithm ${algorithm}`;
    drafted ??= flagCount(flags, ["--speculative-num-steps"]) ?? flagCount(flags, ["--speculative-num-draft-tokens"]);
  }
  const switched = SPECULATIVE_SWITCHES.find((name) => flagText(flags, [name]) !== null);
  if (switched) {
    seenIn ??= switched;
    drafted ??= flagCount(flags, ["--num-speculative-tokens"]);
  }
  const acceptance = levels
    .map((level) => level.server_spec_acceptance_length)
    .filter((value): value is number => value !== null && value > 1);
  if (acceptance.length > 0) seenIn ??= "the server's speculative acceptance metrics";
  if (seenIn === null) return { on: false, tokens_per_step: null, seen_in: "" };
  const tokensPerStep = drafted !== null ? 1 + drafted : acceptance.length > 0 ? Math.max(...acceptance) : null;
  return { on: true, tokens_per_step: tokensPerStep, seen_in: seenIn };
}
