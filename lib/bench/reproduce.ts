/**
 * The `servebench bench` command that measures a run again: rebuilt from the parsed options (not the typed argv),
 * so it holds every option that shaped what was measured, with the model the server resolved, and nothing secret:
 * no write token, no API key (only the name of the variable holding it), no password or query in a URL. The
 * run's context options (name, engine, GPU, tags, notes…) are left out: they describe the run, not how to measure.
 */
import { publicUrl } from "./document";
import type { BenchOptions } from "./options";

/** The command's name as a clone of servebench runs it (the one-file CLI takes the same arguments). */
export const BENCH_COMMAND = "npx servebench bench";

/** A word as POSIX sh reads it back unchanged: bare when it is safe, else in single quotes. */
export function shellWord(word: string): string {
  if (word !== "" && /^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, "'\\''")}'`;
}

/** The options that decide what is measured, as arguments that `parseBenchArgs` reads back to the same values. */
export function benchArgs(options: BenchOptions, model: string | undefined): string[] {
  const args = ["--base-url", publicUrl(options.baseUrl)];
  const servedModel = model ?? options.model;
  if (servedModel !== undefined) args.push("--model", servedModel);
  if (options.requestRates !== null) {
    args.push("--request-rate", options.requestRates.join(","));
    if (options.burstiness !== 1)
      args.push("--burstiness", Number.isFinite(options.burstiness) ? String(options.burstiness) : "inf");
    if (options.maxConcurrency !== undefined) args.push("--max-concurrency", String(options.maxConcurrency));
  } else args.push("--concurrency", options.concurrency.join(","));
  if (options.seed !== 0) args.push("--seed", String(options.seed));
  if (options.requests !== null) args.push("--requests", String(options.requests));
  if (options.dataset === "random") args.push("--dataset", "random");
  if (options.dataset === "sharegpt") args.push("--dataset", "sharegpt", options.datasetPath ?? "");
  if (options.dataset === "prompts") args.push("--prompts", options.promptsFile ?? "");
  if (options.inputLen !== undefined) args.push("--input-len", String(options.inputLen));
  if (options.prefixLen !== undefined) args.push("--prefix-len", String(options.prefixLen));
  if (options.rangeRatio !== undefined) args.push("--range-ratio", String(options.rangeRatio));
  if (options.outputLen !== undefined) args.push("--output-len", String(options.outputLen));
  else if (options.maxTokensGiven) args.push("--max-tokens", String(options.maxTokens));
  if (options.temperature !== 0) args.push("--temperature", String(options.temperature));
  if (options.endpoint !== "chat") args.push("--endpoint", options.endpoint);
  if (options.goodput) {
    const targets = Object.entries(options.goodput).map(([metric, ms]) => `${metric}:${ms}`);
    if (targets.length > 0) args.push("--goodput", ...targets);
  }
  if (options.percentiles.join(",") !== "99") args.push("--percentiles", options.percentiles.join(","));
  if (options.saveDetailed) args.push("--save-detailed");
  if (options.metrics === null) args.push("--no-metrics");
  else {
    if (options.metrics.url !== undefined) args.push("--metrics-url", publicUrl(options.metrics.url));
    if (options.metrics.intervalMs !== 250) args.push("--metrics-interval", String(options.metrics.intervalMs));
  }
  if (options.power.metricsUrl !== undefined) args.push("--power-metrics", publicUrl(options.power.metricsUrl));
  else if (options.power.mode !== "auto") args.push("--power", options.power.mode);
  if (options.power.mode !== "off" && options.power.intervalMs !== 500)
    args.push("--power-interval", String(options.power.intervalMs));
  if (options.apiKeyEnvGiven) args.push("--api-key-env", options.apiKeyEnv);
  if (options.timeoutMs !== 600_000) args.push("--timeout", String(options.timeoutMs / 1000));
  if (options.warmup !== 1) args.push("--warmup", String(options.warmup));
  return args;
}

/** The whole command line, quoted for a POSIX shell. */
export function benchCommandLine(options: BenchOptions, model: string | undefined): string {
  return [BENCH_COMMAND, ...benchArgs(options, model).map(shellWord)].join(" ");
}
