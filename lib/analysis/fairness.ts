/**
 * Like for like: a delta means something only when the runs served the same model on the same hardware
 * under the same workload. This names every difference, and every load level some runs lack, so no one
 * draws a conclusion from an unfair pair.
 */

import type { ResultPoint } from "@/lib/document/schema";
import { formatLoadLevel } from "@/lib/format";
import type { ComparableConfig } from "./config-diff";
import { levelOf, unionLevels } from "./levels";

export interface FairnessSeries {
  label: string;
  config: ComparableConfig;
  results: readonly ResultPoint[];
}

export interface Difference {
  field: string;
  /** "Model", "GPU count", "Output length"… */
  label: string;
  /** Each distinct value with the series that have it. */
  values: { value: string; series: string[] }[];
  /** The difference in one line: "Model differs: Kimi-K2.5 INT4 (a, b) vs Llama-3.1-8B (c)". */
  text: string;
}

export interface MissingLevels {
  series: string;
  levels: string[];
}

export interface FairnessReport {
  differences: Difference[];
  /** Fields some runs state and others do not: the comparison cannot be confirmed fair on them. */
  unstated: { label: string; series: string[] }[];
  missing: MissingLevels[];
  /** Load levels lacking from at least one series, counted over all series. */
  missingCount: number;
}

const FIELDS: { field: string; label: string; read: (config: ComparableConfig) => string | number | undefined }[] = [
  { field: "model", label: "Model", read: (config) => config.model },
  { field: "gpu", label: "GPU", read: (config) => config.hardware?.gpu },
  { field: "gpu_count", label: "GPU count", read: (config) => config.hardware?.gpu_count },
  { field: "dataset", label: "Dataset", read: (config) => config.workload?.dataset },
  { field: "input_len", label: "Input length", read: (config) => config.workload?.input_len },
  { field: "output_len", label: "Output length", read: (config) => config.workload?.output_len },
  { field: "num_prompts", label: "Number of prompts", read: (config) => config.workload?.num_prompts },
  { field: "temperature", label: "Temperature", read: (config) => config.workload?.temperature },
];

export function checkLikeForLike(series: readonly FairnessSeries[]): FairnessReport {
  const differences: Difference[] = [];
  const unstated: FairnessReport["unstated"] = [];
  for (const { field, label, read } of FIELDS) {
    const byValue = new Map<string, string[]>();
    const without: string[] = [];
    for (const item of series) {
      const value = read(item.config);
      if (value === undefined) {
        without.push(item.label);
        continue;
      }
      const text = String(value);
      byValue.set(text, [...(byValue.get(text) ?? []), item.label]);
    }
    if (byValue.size > 1) {
      const values = [...byValue.entries()].map(([value, names]) => ({ value, series: names }));
      const text = `${label} differs: ${values.map((entry) => `${entry.value} (${entry.series.join(", ")})`).join(" vs ")}`;
      differences.push({ field, label, values, text });
    }
    if (byValue.size > 0 && without.length > 0) unstated.push({ label, series: without });
  }

  const levels = unionLevels(series);
  const missing: MissingLevels[] = [];
  let missingCount = 0;
  for (const item of series) {
    const present = new Set(item.results.map((point) => levelOf(point).key));
    const lacking = levels.filter((level) => !present.has(level.key)).map((level) => formatLoadLevel(level));
    if (lacking.length > 0) {
      missing.push({ series: item.label, levels: lacking });
      missingCount += lacking.length;
    }
  }
  return { differences, unstated, missing, missingCount };
}
