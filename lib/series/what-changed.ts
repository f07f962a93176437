/** "What changed" from one run of a series to the next, as a series' page and an uploaded run's verdict show it. */
import { type ConfigChange, diffConfigs } from "@/lib/analysis/config-diff";
import type { Flags } from "@/lib/document/schema";
import { parseJson, type RunRow } from "./load";

type RunConfig = Parameters<typeof diffConfigs>[0];

/**
 * Each run's configuration parsed once: "what changed" compares every run with the one before it, so a series
 * page of 1,000 runs would otherwise parse each run's JSON twice.
 */
const configs = new WeakMap<RunRow, RunConfig>();

function configOf(row: RunRow): RunConfig {
  let config = configs.get(row);
  if (!config) {
    config = parseConfig(row);
    configs.set(row, config);
  }
  return config;
}

function parseConfig(row: RunRow): RunConfig {
  return {
    engine: row.engine,
    engine_version: row.engineVersion ?? undefined,
    model: row.model,
    hardware: {
      gpu: row.gpu ?? undefined,
      gpu_count: row.gpuCount ?? undefined,
      gpu_memory_mib: row.gpuMemoryMib ?? undefined,
    },
    flags: parseJson<Flags>(row.flagsJson) ?? {},
    env: parseJson<Record<string, string>>(row.envJson) ?? {},
    workload: parseJson<Record<string, string | number | undefined>>(row.workloadJson),
    speculative: parseJson<Record<string, string | number | undefined>>(row.speculativeJson),
  };
}

/** The columns a run's configuration is read from: runs whose columns are equal have no configuration change. */
const CONFIG_COLUMNS = [
  "engine",
  "engineVersion",
  "model",
  "gpu",
  "gpuCount",
  "gpuMemoryMib",
  "flagsJson",
  "envJson",
  "workloadJson",
  "speculativeJson",
] as const satisfies readonly (keyof RunRow)[];

/** "What changed" from one run of a series to the next: configuration, then commit and branch. */
export function whatChanged(previous: RunRow, next: RunRow): string[] {
  // Most nights run the configuration of the night before: nothing to parse and compare then.
  const sameConfig = CONFIG_COLUMNS.every((column) => previous[column] === next[column]);
  const lines = sameConfig
    ? []
    : diffConfigs(configOf(previous), configOf(next)).map((change: ConfigChange) => change.text);
  if (previous.gitCommit !== next.gitCommit && next.gitCommit) {
    lines.push(`commit: ${previous.gitCommit?.slice(0, 12) ?? "not set"} → ${next.gitCommit.slice(0, 12)}`);
  }
  if (previous.gitBranch !== next.gitBranch && next.gitBranch) {
    lines.push(`branch: ${previous.gitBranch ?? "not set"} → ${next.gitBranch}`);
  }
  return lines;
}
