/**
 * Validity checks: is each run physically possible and measured the way its figures claim? A run is never
 * refused for failing one: it is marked, with the reason, wherever it is shown. The checks read the stored
 * document whenever the run is read (nothing is stored), so a fix to the GPU catalogue or a threshold applies to
 * every run kept before it. Definitions, formulas, thresholds and sources: docs/metrics.md#validity-checks.
 */
import { formatNumber } from "@/lib/format";
import { metricDefinitionsCheck } from "./definitions";
import { flagObject } from "./flags";
import { matchGpu } from "./gpus";
import { modelSizeOf } from "./model-size";
import { type CheckableRun, type Level, levelsOf, parallelismOf, speculationOf } from "./run-facts";

export type { CheckablePoint, CheckableRun } from "./run-facts";

export type CheckStatus = "ok" | "marked" | "unknown";
export type CheckId =
  | "roofline"
  | "saturation"
  | "output-length"
  | "failed-requests"
  | "client-path"
  | "metric-definitions"
  | "gpu-count";

export interface ValidityCheck {
  id: CheckId;
  status: CheckStatus;
  title: string;
  detail: string;
  /** The load levels the mark concerns, as they read ("C=128", "4 req/s"). */
  levels?: string[];
}

export interface ValidityReport {
  checks: ValidityCheck[];
  /** Whether any check marked the run. */
  marked: boolean;
  /** One sentence naming what is marked; "" when nothing is. */
  summary: string;
}

/**
 * A stream may run this much above the memory-bandwidth bound before it is marked: datasheet bandwidths are
 * rounded and clocks vary a few percent. The bound leaves out KV-cache reads and activations, which only lower the
 * real ceiling, so a run past 1.1× the bound could not have been measured as stated.
 */
export const ROOFLINE_TOLERANCE = 1.1;
/** Over-saturation: TTFT at least doubles from one level to the next higher load… */
export const SATURATION_TTFT_GROWTH = 2;
/** …by at least this many ms (a 5 → 11 ms TTFT is noise, not a queue)… */
export const SATURATION_TTFT_MIN_RISE_MS = 50;
/** …while output throughput gains less than this share. */
export const SATURATION_FLAT_THROUGHPUT = 0.05;
/** Mean output tokens per request may be 90–110% of the requested output length. */
export const OUTPUT_LENGTH_LOW = 0.9;
export const OUTPUT_LENGTH_HIGH = 1.1;
/** A level whose failed share exceeds 1% is marked. */
export const FAILED_SHARE_LIMIT = 0.01;
/** A client round trip above 5% of the single-stream mean TPOT is marked. */
export const CLIENT_RTT_SHARE_OF_TPOT = 0.05;
/** What a kubectl port-forward added per request in AIPerf's measurement (ai-dynamo/aiperf issue #850). */
export const PORT_FORWARD_ADDED_MS = 2.09;

/** The client paths `metadata.client_path` may name. */
export const CLIENT_PATHS = ["localhost", "same-host", "network", "port-forward"] as const;
export type ClientPath = (typeof CLIENT_PATHS)[number];

const TITLES: Record<CheckId, string> = {
  roofline: "Memory-bandwidth bound",
  saturation: "Over-saturation",
  "output-length": "Output length",
  "failed-requests": "Failed requests",
  "gpu-count": "GPU count",
  "client-path": "Client path",
  "metric-definitions": "Metric definitions",
};

/** A check's answer with the short phrase the summary uses when it marks. */
interface Finding extends ValidityCheck {
  short?: string;
}

function finding(
  id: CheckId,
  status: CheckStatus,
  detail: string,
  extra: { levels?: string[]; short?: string } = {},
): Finding {
  const result: Finding = { id, status, title: TITLES[id], detail };
  if (extra.levels && extra.levels.length > 0) result.levels = extra.levels;
  if (extra.short) result.short = extra.short;
  return result;
}

const percent = (share: number) => `${formatNumber(share * 100)}%`;
const signedPercent = (share: number) => `${share >= 0 ? "+" : "−"}${formatNumber(Math.abs(share) * 100)}%`;
const billions = (value: number) => `${formatNumber(value)}B`;

/** Each level's per-stream decode speed: 1000 / mean TPOT, or at C=1 without a TPOT its output tok/s. */
function streamSpeeds(levels: readonly Level[]): { level: Level; tok_s: number; from: string }[] {
  const speeds: { level: Level; tok_s: number; from: string }[] = [];
  for (const level of levels) {
    if (level.mean_tpot_ms !== null && level.mean_tpot_ms > 0) {
      speeds.push({ level, tok_s: 1000 / level.mean_tpot_ms, from: "1000 / mean TPOT" });
    } else if (level.kind === "concurrency" && level.load === 1 && level.output_throughput) {
      speeds.push({ level, tok_s: level.output_throughput, from: "output tok/s at C=1" });
    }
  }
  return speeds;
}

/**
 * Roofline: decoding one token reads every active weight once, so one stream cannot decode faster than the
 * memory bandwidth of the GPUs holding the weights divided by the bytes of active weights (Williams et al.,
 * 2009). Batching does not help a stream (a step reads the weights once for the whole batch), so the bound holds
 * for the per-stream speed at every load level; C=1 is where a run comes closest.
 */
function rooflineCheck(run: CheckableRun, levels: readonly Level[]): Finding {
  const gpuName = run.hardware?.gpu;
  if (!gpuName) return finding("roofline", "unknown", "The run does not name its GPU (hardware.gpu).");
  const gpu = matchGpu(gpuName, run.hardware?.gpu_memory_mib);
  if (!gpu) {
    return finding(
      "roofline",
      "unknown",
      `GPU not in the catalogue: “${gpuName}”, so its memory bandwidth is unknown.`,
    );
  }
  const parallelism = parallelismOf(flagObject(run.flags));
  // The larger of the two, so that a wrong GPU count (the gpu-count check's business) never marks a run here.
  const counts = [parallelism.stated ? parallelism.weight_gpus : null, run.hardware?.gpu_count ?? null].filter(
    (count): count is number => count !== null,
  );
  const gpus = counts.length > 0 ? Math.max(...counts) : null;
  if (gpus === null) {
    return finding(
      "roofline",
      "unknown",
      "The run states neither a GPU count (hardware.gpu_count) nor a tensor-parallel size in its flags.",
    );
  }
  const size = modelSizeOf(run);
  if (size.active_params_b === null) {
    const why = size.mixture_of_experts
      ? `“${run.model}” is a mixture of experts whose active parameters its name does not state`
      : `the name “${run.model}” states no parameter count`;
    return finding(
      "roofline",
      "unknown",
      `Model size unknown: ${why}. State model_size.active_params_b (and bytes_per_param) in the run to check it.`,
    );
  }
  const speeds = streamSpeeds(levels);
  if (speeds.length === 0) {
    return finding("roofline", "unknown", "No load level has a mean TPOT, and there is no output throughput at C=1.");
  }
  const bytesPerToken_gb = size.active_params_b * size.bytes_per_param;
  const plainBound_tok_s = (gpus * gpu.bandwidth_gb_s) / bytesPerToken_gb;
  const speculation = speculationOf(run, levels);
  if (speculation.on && speculation.tokens_per_step === null) {
    return finding(
      "roofline",
      "unknown",
      `Speculative decoding is on (${speculation.seen_in}) but its drafted tokens per step are not recorded, so the bound (${formatNumber(plainBound_tok_s)} tok/s per stream without it) cannot be scaled: state speculative.num_speculative_tokens.`,
    );
  }
  const perStep = speculation.on ? (speculation.tokens_per_step ?? 1) : 1;
  const bound_tok_s = plainBound_tok_s * perStep;
  const fastest = speeds.reduce((best, speed) => (speed.tok_s > best.tok_s ? speed : best));
  const over = speeds.filter((speed) => speed.tok_s > bound_tok_s * ROOFLINE_TOLERANCE);
  const hardware = `${gpus}× ${gpu.name} (${formatNumber(gpu.bandwidth_gb_s)} GB/s each${parallelism.stated && gpus === parallelism.weight_gpus ? `, ${parallelism.text}` : ""})`;
  const weights = `${billions(size.active_params_b)} active params at ${formatNumber(size.bytes_per_param)} byte${size.bytes_per_param === 1 ? "" : "s"} (${size.precision})`;
  const spec = speculation.on
    ? ` Speculative decoding (${speculation.seen_in}): the bound is multiplied by ${formatNumber(perStep)}, the most tokens one verification step can yield.`
    : "";
  if (over.length > 0) {
    const worst = over.reduce((best, speed) => (speed.tok_s > best.tok_s ? speed : best));
    return finding(
      "roofline",
      "marked",
      `${formatNumber(worst.tok_s)} tok/s per stream at ${worst.level.label} exceeds the ${formatNumber(bound_tok_s)} tok/s memory-bandwidth bound of ${hardware} for ${weights}: no decode step reads the weights faster than the GPUs' memory allows. The GPU, GPU count, model size, precision or the figure itself is wrong.${spec}`,
      {
        levels: over.map((speed) => speed.level.label),
        short: `${formatNumber(worst.tok_s)} tok/s per stream exceeds the ${formatNumber(bound_tok_s)} tok/s memory-bandwidth bound`,
      },
    );
  }
  return finding(
    "roofline",
    "ok",
    `Fastest stream ${formatNumber(fastest.tok_s)} tok/s (${fastest.level.label}, ${fastest.from}), ${percent(fastest.tok_s / bound_tok_s)} of the ${formatNumber(bound_tok_s)} tok/s bound of ${hardware} for ${weights}.${spec} KV-cache reads and activations lower the real ceiling further; only a stream above ${formatNumber(ROOFLINE_TOLERANCE)}× the bound is marked.`,
  );
}

/** Over-saturation: past the knee, more load only lengthens the queue: TTFT multiplies, throughput stays put. */
function saturationCheck(levels: readonly Level[]): Finding {
  const steps: { level: Level; ttft_ratio: number; gain: number }[] = [];
  let compared = 0;
  for (const kind of ["concurrency", "request_rate"] as const) {
    const series = levels.filter((level) => level.kind === kind);
    for (let index = 1; index < series.length; index += 1) {
      const lower = series[index - 1]!;
      const higher = series[index]!;
      const medians = lower.median_ttft_ms !== null && higher.median_ttft_ms !== null;
      const ttftLow = medians ? lower.median_ttft_ms : lower.mean_ttft_ms;
      const ttftHigh = medians ? higher.median_ttft_ms : higher.mean_ttft_ms;
      if (ttftLow === null || ttftHigh === null || ttftLow <= 0) continue;
      if (!lower.output_throughput || higher.output_throughput === null) continue;
      compared += 1;
      const ratio = ttftHigh / ttftLow;
      const gain = higher.output_throughput / lower.output_throughput - 1;
      if (
        ratio >= SATURATION_TTFT_GROWTH &&
        ttftHigh - ttftLow >= SATURATION_TTFT_MIN_RISE_MS &&
        gain < SATURATION_FLAT_THROUGHPUT
      ) {
        steps.push({ level: higher, ttft_ratio: ratio, gain });
      }
    }
  }
  if (compared === 0) {
    return finding(
      "saturation",
      "unknown",
      "Needs two load levels of one kind, each with a TTFT and an output throughput.",
    );
  }
  if (steps.length === 0) {
    return finding(
      "saturation",
      "ok",
      `No step to a higher load multiplied TTFT by ${SATURATION_TTFT_GROWTH} or more while throughput stayed within +${percent(SATURATION_FLAT_THROUGHPUT)} (${compared} step${compared === 1 ? "" : "s"} compared).`,
    );
  }
  const ratios = steps.map((step) => step.ttft_ratio);
  const gains = steps.map((step) => step.gain);
  const span = (values: number[], format: (value: number) => string) => {
    const low = Math.min(...values);
    const high = Math.max(...values);
    return format(low) === format(high) ? format(low) : `${format(low)} to ${format(high)}`;
  };
  const labels = steps.map((step) => step.level.label);
  const queue = steps
    .filter((step) => step.level.server_waiting_requests_mean !== null && step.level.server_waiting_requests_mean > 0)
    .map((step) => `${step.level.label} ${formatNumber(step.level.server_waiting_requests_mean)}`);
  const queueText = queue.length > 0 ? ` The server's own queue held on average: ${queue.join(", ")} requests.` : "";
  return finding(
    "saturation",
    "marked",
    `${labels.join(", ")}: TTFT ×${span(ratios, formatNumber)} while throughput ${span(gains, signedPercent)} — the queue only grew. These levels measure waiting, not serving; compare runs below them.${queueText}`,
    { levels: labels, short: `over-saturated at ${labels.join(", ")}` },
  );
}

/** Mean output tokens per request against the requested output length: early ends mean EOS was not ignored. */
function outputLengthCheck(run: CheckableRun, levels: readonly Level[]): Finding {
  const asked = run.workload?.output_len;
  if (!asked)
    return finding("output-length", "unknown", "The run states no requested output length (workload.output_len).");
  // SGLang's random dataset draws each length uniformly from [len × r, len] (metadata.random_range_ratio), so
  // its requests average len × (1 + r) / 2; vLLM's range ratio is symmetric around len and keeps the mean.
  const sglangRatio = metadataNumber(run.metadata?.random_range_ratio);
  const drawnShare = sglangRatio !== null && sglangRatio < 1 ? (1 + sglangRatio) / 2 : 1;
  const expected = asked * drawnShare;
  const drawn =
    drawnShare < 1
      ? `, the mean of lengths drawn up to output_len ${formatNumber(asked)} with random_range_ratio ${formatNumber(sglangRatio)}`
      : ` (workload.output_len)`;
  const measured = levels
    .filter((level) => level.completed && level.total_output_tokens !== null)
    .map((level) => ({ level, mean: level.total_output_tokens! / level.completed!, share: 0 }))
    .map((entry) => ({ ...entry, share: entry.mean / expected }));
  if (measured.length === 0) {
    return finding("output-length", "unknown", "No load level states its output tokens and completed requests.");
  }
  const off = measured.filter((entry) => entry.share < OUTPUT_LENGTH_LOW || entry.share > OUTPUT_LENGTH_HIGH);
  if (off.length === 0) {
    const shares = measured.map((entry) => entry.share);
    const low = percent(Math.min(...shares));
    const high = percent(Math.max(...shares));
    return finding(
      "output-length",
      "ok",
      `Every level generated ${low === high ? low : `${low}–${high}`} of the ${formatNumber(expected)} tokens expected per request${drawn} (within ${percent(OUTPUT_LENGTH_LOW)}–${percent(OUTPUT_LENGTH_HIGH)}).`,
    );
  }
  const worst = off.reduce((best, entry) => (Math.abs(entry.share - 1) > Math.abs(best.share - 1) ? entry : best));
  const why =
    worst.share < 1
      ? "requests ended early: end-of-sequence was not ignored, so the levels did not decode the same work"
      : "requests generated more than they asked for: output_len is not what was sent, or the count includes other tokens";
  return finding(
    "output-length",
    "marked",
    `${worst.level.label}: ${formatNumber(worst.mean)} tokens per request on average, ${percent(worst.share)} of the ${formatNumber(expected)} expected${drawn} — ${why}.`,
    {
      levels: off.map((entry) => entry.level.label),
      short: `output length ${percent(worst.share)} of the length asked at ${off.map((entry) => entry.level.label).join(", ")}`,
    },
  );
}

function failedRequestsCheck(levels: readonly Level[]): Finding {
  const counted = levels.filter((level) => level.completed !== null && level.failed !== null);
  const withRequests = counted.filter((level) => level.completed! + level.failed! > 0);
  if (withRequests.length === 0) {
    return finding("failed-requests", "unknown", "No load level states both its completed and its failed requests.");
  }
  const shares = withRequests.map((level) => ({ level, share: level.failed! / (level.completed! + level.failed!) }));
  const over = shares.filter((entry) => entry.share > FAILED_SHARE_LIMIT);
  if (over.length === 0) {
    const failed = withRequests.reduce((sum, level) => sum + level.failed!, 0);
    return finding(
      "failed-requests",
      "ok",
      failed === 0
        ? `No request failed (${withRequests.length} level${withRequests.length === 1 ? "" : "s"}).`
        : `${failed} request${failed === 1 ? "" : "s"} failed; no level above ${percent(FAILED_SHARE_LIMIT)}.`,
    );
  }
  const parts = over.map(
    (entry) =>
      `${entry.level.label} ${percent(entry.share)} (${entry.level.failed} of ${entry.level.completed! + entry.level.failed!})`,
  );
  return finding(
    "failed-requests",
    "marked",
    `More than ${percent(FAILED_SHARE_LIMIT)} of requests failed at ${parts.join(", ")}: the figures there describe the requests that survived, which flatters latency.`,
    {
      levels: over.map((entry) => entry.level.label),
      short: `over ${percent(FAILED_SHARE_LIMIT)} failed at ${over.map((entry) => entry.level.label).join(", ")}`,
    },
  );
}

/** The GPUs the launch flags use against the GPUs the run says it had. */
function gpuCountCheck(run: CheckableRun): Finding {
  const parallelism = parallelismOf(flagObject(run.flags));
  const stated = run.hardware?.gpu_count;
  if (!parallelism.stated) {
    return finding(
      "gpu-count",
      "unknown",
      `The flags state no tensor-, pipeline- or data-parallel size${stated ? ` to hold the ${stated} GPU${stated === 1 ? "" : "s"} stated against` : ""}.`,
    );
  }
  const uses = `${parallelism.gpus} GPU${parallelism.gpus === 1 ? "" : "s"} (${parallelism.text})`;
  if (!stated) return finding("gpu-count", "unknown", `The flags use ${uses}; the run states no GPU count.`);
  if (stated === parallelism.gpus) {
    return finding("gpu-count", "ok", `The flags use ${uses}, as the run states.`);
  }
  const statedText = `${stated} GPU${stated === 1 ? "" : "s"}`;
  // A stack of several servers (llm-d's components, SGLang's prefill/decode disaggregation) counts every server's
  // GPUs while the flags are one server's: more GPUs than the flags use is then expected, fewer never is.
  const components = typeof run.metadata?.roles === "string" ? run.metadata.roles : null;
  const disaggregated = components !== null || run.metadata?.pd_disaggregation === true;
  if (disaggregated && stated > parallelism.gpus) {
    return finding(
      "gpu-count",
      "ok",
      `The run counts ${statedText} over several servers (${components ? `components: ${components}` : "prefill/decode disaggregated"}); the flags give one server's ${uses}.`,
    );
  }
  const replicas =
    stated > parallelism.gpus && stated % parallelism.gpus === 0
      ? ` Unless ${stated / parallelism.gpus} replicas served it together, per-GPU figures are divided by the wrong count.`
      : " Per-GPU figures and the roofline read the wrong count.";
  return finding(
    "gpu-count",
    "marked",
    `The flags use ${uses} but the run says ${statedText} (hardware.gpu_count).${replicas}`,
    {
      short: `the flags use ${parallelism.gpus} GPU${parallelism.gpus === 1 ? "" : "s"}, the run says ${stated}`,
    },
  );
}

function metadataNumber(value: string | number | boolean | undefined): number | null {
  if (typeof value === "number") return Number.isFinite(value) && value >= 0 ? value : null;
  if (typeof value === "string" && /^\d{1,9}(\.\d{1,9})?$/.test(value.trim())) return Number(value);
  return null;
}

/** How the client reached the server: a round trip that is a noticeable share of a token's time is in the figures. */
function clientPathCheck(run: CheckableRun, levels: readonly Level[]): Finding {
  const rawPath = run.metadata?.client_path;
  const path =
    typeof rawPath === "string" && (CLIENT_PATHS as readonly string[]).includes(rawPath.trim().toLowerCase())
      ? (rawPath.trim().toLowerCase() as ClientPath)
      : null;
  const rtt_ms = metadataNumber(run.metadata?.client_rtt_ms);
  if (path === null && rtt_ms === null) {
    return finding(
      "client-path",
      "unknown",
      "Not recorded: how the client reached the server (metadata.client_path: localhost, same-host, network or port-forward) and its round trip (metadata.client_rtt_ms). servebench bench records both.",
    );
  }
  const pathText = path ? `Client path: ${path}` : "Client path not recorded";
  if (rtt_ms === null) {
    if (path === "localhost" || path === "same-host") {
      return finding("client-path", "ok", `${pathText}; a loopback round trip adds microseconds.`);
    }
    return finding(
      "client-path",
      "unknown",
      `${pathText}, round trip not recorded (metadata.client_rtt_ms)${path === "port-forward" ? `; a port-forward added about ${PORT_FORWARD_ADDED_MS} ms per request in AIPerf's measurement` : ""}.`,
    );
  }
  const single = levels.find((level) => level.kind === "concurrency" && level.load === 1 && level.mean_tpot_ms);
  const reference = single ?? levels.find((level) => level.mean_tpot_ms);
  const rttText = `${pathText}, round trip ${formatNumber(rtt_ms)} ms`;
  if (!reference?.mean_tpot_ms) {
    return finding("client-path", "ok", `${rttText}; no mean TPOT to weigh it against.`);
  }
  const share = rtt_ms / reference.mean_tpot_ms;
  const against = `${percent(share)} of the ${formatNumber(reference.mean_tpot_ms)} ms mean TPOT at ${reference.label}`;
  if (share > CLIENT_RTT_SHARE_OF_TPOT) {
    return finding(
      "client-path",
      "marked",
      `${rttText}: ${against}, above ${percent(CLIENT_RTT_SHARE_OF_TPOT)}. The path's delay and its jitter land on every streamed chunk, so TTFT and ITL carry the network as well as the server.`,
      { short: `client round trip ${formatNumber(rtt_ms)} ms is ${percent(share)} of a token's time` },
    );
  }
  return finding("client-path", "ok", `${rttText}: ${against}.`);
}

function definitionsFinding(run: CheckableRun, levels: readonly Level[]): Finding {
  const found = metricDefinitionsCheck(run, levels);
  const extra: { levels?: string[]; short?: string } = {};
  if (found.levels) extra.levels = found.levels;
  if (found.short) extra.short = found.short;
  return finding("metric-definitions", found.status, found.detail, extra);
}

function summaryOf(findings: readonly Finding[]): string {
  const marked = findings.filter((entry) => entry.status === "marked");
  if (marked.length === 0) return "";
  const phrases = marked.map((entry) => entry.short ?? entry.title.toLowerCase());
  const sentence = phrases.join("; ");
  return `Marked: ${sentence}.`;
}

/** Every validity check of a run, computed from its document as stored (or as uploaded). */
export function checkRun(run: CheckableRun): ValidityReport {
  const levels = levelsOf(run.results);
  const findings: Finding[] = [
    rooflineCheck(run, levels),
    saturationCheck(levels),
    outputLengthCheck(run, levels),
    failedRequestsCheck(levels),
    gpuCountCheck(run),
    clientPathCheck(run, levels),
    definitionsFinding(run, levels),
  ];
  const checks = findings.map(({ short: _short, ...check }) => check);
  return { checks, marked: checks.some((check) => check.status === "marked"), summary: summaryOf(findings) };
}
