/**
 * Which series a run belongs to. A run that names its series (`series` in the document) joins that series.
 * Otherwise the key is what makes two runs like for like: engine, model, hardware, workload, speculative
 * decoding settings and launch flags. The engine version and the git commit are left out on purpose, so an
 * upgrade stays inside its series and shows as a step on the trend line instead of starting a new one.
 */

import { createHash } from "node:crypto";
import { canonicalSetting } from "@/lib/analysis/config-diff";
import { withSortedKeys } from "@/lib/canonical-json";
import { engineDisplayName, flagText, hardwareText, shortModelName, workloadText } from "@/lib/document/names";
import type { RunDocument } from "@/lib/document/normalize";
import type { FlagValue } from "@/lib/document/schema";
import { randomId } from "@/lib/random-id";

/**
 * Flags that do not change what is measured: where the server listens, what it logs, where weights are cached,
 * the name it answers to. A nightly job that moves to another port or cache folder stays in its series.
 * `--model` is covered by the document's `model` (its path differs from machine to machine).
 */
export const FLAGS_OUTSIDE_SERIES_KEY: ReadonlySet<string> = new Set([
  "--host",
  "--port",
  "--api-key",
  "--served-model-name",
  "--download-dir",
  "--log-level",
  "--uvicorn-log-level",
  "--disable-log-requests",
  "--disable-log-stats",
  "--enable-log-requests",
  "--model",
  "--hf-token",
  "--trust-remote-code",
]);

export type SeriesKeyInput = Pick<
  RunDocument,
  "series" | "engine" | "model" | "hardware" | "flags" | "workload" | "speculative"
>;

export interface SeriesIdentity {
  /** `name:<series>` or `config:<sha256 hex>`: unique per series. */
  key: string;
  /** What the series is called in lists. */
  name: string;
  explicit: boolean;
}

/** The configuration that defines a series, in a canonical form (flags under one name per setting). */
export function seriesConfiguration(run: SeriesKeyInput): Record<string, unknown> {
  const flags: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(run.flags)) {
    const setting = canonicalSetting(name);
    if (FLAGS_OUTSIDE_SERIES_KEY.has(setting)) continue;
    flags[setting] = value;
  }
  const speculative = run.speculative
    ? {
        method: run.speculative.method,
        draft_model: run.speculative.draft_model,
        num_speculative_tokens: run.speculative.num_speculative_tokens,
      }
    : undefined;
  return withSortedKeys({
    engine: run.engine,
    model: run.model,
    gpu: run.hardware?.gpu,
    gpu_count: run.hardware?.gpu_count,
    workload: run.workload,
    speculative,
    flags,
  }) as Record<string, unknown>;
}

/** The most of a name the launch flags may take; the key still holds them all. */
const NAME_FLAGS_CHARS = 100;

/**
 * What the series is called in lists, in the words run names use (lib/document/names.ts), with the launch flags
 * that are part of its key: two series that differ only in a flag must not read the same.
 */
function configurationName(run: SeriesKeyInput): string {
  const configuration = seriesConfiguration(run);
  const flags = Object.entries((configuration.flags ?? {}) as Record<string, FlagValue>)
    .map(([name, value]) => flagText(name, value))
    .join(" ");
  const flagsPart = flags.length > NAME_FLAGS_CHARS ? `${flags.slice(0, NAME_FLAGS_CHARS - 1).trimEnd()}…` : flags;
  return [
    engineDisplayName(run.engine),
    shortModelName(run.model),
    hardwareText(run.hardware),
    workloadText(run.workload),
    flagsPart,
  ]
    .filter(Boolean)
    .join(" · ")
    .slice(0, 200);
}

export function seriesIdentity(run: SeriesKeyInput): SeriesIdentity {
  if (run.series !== undefined) return { key: `name:${run.series}`, name: run.series, explicit: true };
  const digest = createHash("sha256")
    .update(JSON.stringify(seriesConfiguration(run)))
    .digest("hex");
  return { key: `config:${digest}`, name: configurationName(run), explicit: false };
}

/** Short, URL-safe and unguessable: 10 base64url characters (~59.9 random bits), the first a letter or digit. */
export function newSeriesId(): string {
  return randomId(10);
}
