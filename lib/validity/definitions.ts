/**
 * Which definitions a run's latency figures follow. Every importer maps its tool's figures onto servebench's
 * definitions (vLLM's: TPOT excludes the first token) and keeps a figure that includes it apart, as
 * `e2el_per_token` (docs/metrics.md, "What each tool calls them"); this check says which mapping a run went
 * through. A document written by hand has been through none, so its TPOT is tested against its own latencies.
 */
import { formatNumber } from "@/lib/format";
import type { CheckableRun, Level } from "./run-facts";

export interface DefinitionsFinding {
  status: "ok" | "marked" | "unknown";
  detail: string;
  levels?: string[];
  short?: string;
}

const VLLM_DEFINITIONS =
  "TPOT is (e2e latency − TTFT) / (output tokens − 1) per request, the first token excluded; ITL the gaps between streamed chunks";

function text(value: string | number | boolean | undefined): string | null {
  return typeof value === "string" && value.trim() !== ""
    ? value.trim()
    : typeof value === "number"
      ? String(value)
      : null;
}

/** What each importer's figures follow, in words, from docs/formats/*.md. */
function definitionsOfFormat(run: CheckableRun): string | null {
  const metadata = run.metadata ?? {};
  const version = (value: string | null) => (value ? ` ${value}` : "");
  switch (run.source_format) {
    case "vllm-bench-serve":
    case "vllm-sweep":
      return `vLLM bench serve: ${VLLM_DEFINITIONS} (servebench's definitions are vLLM's).`;
    case "vllm-benchmark-suite":
      return `vLLM performance benchmark suite: the figures of vllm bench serve, so vLLM's definitions — ${VLLM_DEFINITIONS}.`;
    case "vllm-bench-rs":
      return `vLLM vllm-bench (Rust) multi-turn: the same metric code as vllm bench serve over every turn — ${VLLM_DEFINITIONS}; input tokens count each turn's whole prompt, history included.`;
    case "sglang-bench-serving":
      return `SGLang bench_serving: vLLM's definitions — ${VLLM_DEFINITIONS}.`;
    case "sglang-bench-one-batch-server":
    case "sglang-bench-one-batch":
      return "SGLang bench_one_batch: one batch, no per-request TPOT; its decode-only throughput is kept as decode_throughput, apart from output_throughput.";
    case "guidellm":
      return `GuideLLM${version(text(metadata.guidellm_version))}: its time_per_output_token includes the first token and is stored as e2el_per_token, never as TPOT; its inter_token_latency, (e2e − TTFT) / (tokens − 1), is stored as TPOT.`;
    case "llmperf":
      return "LLMPerf: its inter_token_latency is e2e latency / output tokens, the first token included, so it is stored as e2el_per_token; the file has no TPOT.";
    case "aiperf": {
      const tool = text(metadata.tool) === "genai-perf" ? "GenAI-Perf" : "AIPerf";
      return `${tool}: its inter_token_latency excludes the first token, stored as TPOT; inter_chunk_latency (chunk gaps) as ITL.`;
    }
    case "inference-perf":
      return `inference-perf (${text(metadata.report_layout) ?? "report layout not recorded"}): TPOT only from token-timed (v0.5+) reports; its normalized time per output token (first token included) is stored as e2el_per_token.`;
    case "trtllm-bench":
      return "trtllm-bench: its TPOT excludes the first token (servebench's definition); it measures no ITL.";
    case "llama-bench":
      return "llama-bench: no latencies, only the tok/s of its generation test (a single stream).";
    case "genai-bench":
      return "genai-bench: its tpot is (e2e latency − TTFT) / (output tokens − 1) per request, the first token excluded, stored as TPOT; it measures no ITL. Output throughput is the completed requests' output tokens over the run's duration.";
    case "evalscope":
      return "EvalScope perf: its TPOT is (latency − TTFT) / (output tokens − 1) per request, the first token excluded, stored as TPOT; its ITL the gaps between streamed chunks. A non-streaming run's TTFT, TPOT and ITL are not imported.";
    case "llm-d-benchmark-report": {
      const tool = text(metadata.load_tool);
      return `llm-d benchmark report${tool ? ` from ${tool}${version(text(metadata.load_tool_version))}` : ""}: each figure mapped by the tool that measured it (docs/formats/llm-d-benchmark-report.md).`;
    }
    case "mlperf-inference":
      return "MLPerf Inference LoadGen: its time to output token is (latency − first token latency) / (tokens − 1) per sample, servebench's TPOT; no ITL; percentiles are nearest-rank over the samples; an Offline run has no latencies.";
    case "llm-load-test":
      return "llm-load-test: its tpot is response time / output tokens, the first token included, stored as e2el_per_token; its itl, (end − first token) / (output tokens − 1), is stored as TPOT.";
    default:
      return null;
  }
}

/**
 * A hand-written TPOT that is really e2e latency / output tokens (GuideLLM's and LLMPerf's "TPOT"): at a level
 * with mean TTFT, e2e latency, TPOT and output tokens per request n, vLLM's TPOT is about (e2el − TTFT) / (n − 1)
 * and the other about e2el / n. Judged only where the two differ by more than 10%, and marked when the stated
 * TPOT lies within 5% of e2el / n (means of ratios are not ratios of means, hence the margins).
 */
function firstTokenIncluded(
  levels: readonly Level[],
): { level: Level; stated: number; per_token: number; vllm: number }[] {
  const found: { level: Level; stated: number; per_token: number; vllm: number }[] = [];
  for (const level of levels) {
    const { mean_tpot_ms: stated, mean_e2el_ms: e2el, mean_ttft_ms: ttft } = level;
    if (stated === null || e2el === null || ttft === null || !level.completed || level.total_output_tokens === null)
      continue;
    const tokens = level.total_output_tokens / level.completed;
    if (tokens < 2) continue;
    const vllm = (e2el - ttft) / (tokens - 1);
    const perToken = e2el / tokens;
    if (vllm <= 0 || Math.abs(perToken - vllm) / vllm <= 0.1) continue;
    if (Math.abs(stated - perToken) / perToken < 0.05) found.push({ level, stated, per_token: perToken, vllm });
  }
  return found;
}

export function metricDefinitionsCheck(run: CheckableRun, levels: readonly Level[]): DefinitionsFinding {
  const known = definitionsOfFormat(run);
  if (known !== null) return { status: "ok", detail: known };
  const client = text(run.metadata?.client);
  const format = run.source_format ?? "servebench/v1";
  if (format === "servebench/v1" && client === "servebench bench") {
    return { status: "ok", detail: `servebench bench: ${VLLM_DEFINITIONS}.` };
  }
  const included = firstTokenIncluded(levels);
  if (included.length > 0) {
    const first = included[0]!;
    return {
      status: "marked",
      detail: `${first.level.label}: the mean TPOT of ${formatNumber(first.stated)} ms equals e2e latency / output tokens (${formatNumber(first.per_token)} ms), not (e2e latency − TTFT) / (output tokens − 1) (${formatNumber(first.vllm)} ms): it includes the first token, as GuideLLM's and LLMPerf's "TPOT" do. Store it as mean_e2el_per_token_ms, or import the tool's own file.`,
      levels: included.map((entry) => entry.level.label),
      short: "TPOT includes the first token",
    };
  }
  if (format !== "servebench/v1") {
    return { status: "unknown", detail: `The source format “${format}” is not one servebench imports.` };
  }
  return {
    status: "unknown",
    detail: `The run does not say which tool measured it (metadata.client); its figures are read by servebench's definitions: ${VLLM_DEFINITIONS}.`,
  };
}
