/**
 * "What changed": a run's configuration against the baseline's, flag by flag, variable by variable,
 * field by field. Each change is one line a person can read next to the run's deltas.
 */

import { formatFlag, formatFlagValue } from "@/lib/document/flag-format";
import { isUnknownEngine } from "@/lib/document/names";
import type { Flags, FlagValue } from "@/lib/document/schema";
import { diffNameOf } from "@/lib/engines/catalogue";
import { type EffectiveChange, effectiveChanges, effectiveSides, settingIdOfFlag } from "@/lib/engines/effective";
import { ownValue } from "@/lib/own-value";

export type ChangeKind = "added" | "removed" | "changed";

export interface ConfigChange {
  section: "flag" | "env" | "engine" | "model" | "hardware" | "workload" | "speculative";
  key: string;
  kind: ChangeKind;
  from: string | null;
  to: string | null;
  /**
   * The whole change as one line: `--disable-cuda-graph removed`, `--tp: 4 → 8`, `engine version: 0.5.7 → 0.5.8`.
   * A flag change that leaves its effective setting as it was says so: `--enable-chunked-prefill added: chunked
   * prefill on (default) → on, no change`.
   */
  text: string;
  /** For a flag the engine catalogue knows (lib/engines): the setting as each engine ran it, default included. */
  effective?: EffectiveChange;
}

export interface ComparableConfig {
  engine: string;
  engine_version?: string | undefined;
  model: string;
  hardware?:
    | { gpu?: string | undefined; gpu_count?: number | undefined; gpu_memory_mib?: number | undefined }
    | undefined;
  flags: Flags;
  env: Record<string, string>;
  workload?: Record<string, string | number | undefined> | undefined;
  speculative?: Record<string, string | number | undefined> | undefined;
}

function sameFlagValue(a: FlagValue, b: FlagValue): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Engines spell the same setting differently: SGLang's `--tp` is vLLM's `--tensor-parallel-size`, SGLang's
 * `--model-path` is vLLM's `--model`. Flags are diffed under one name per setting, so switching engines does not
 * show the same tensor parallelism as one flag removed and another added. The spellings read this way are the
 * engine catalogue's `renamed_in_diff` ones (lib/engines/flag-catalogue.json); the series key reads flags under
 * the same names, so a spelling added there moves the runs that use it into a new series.
 */
export function canonicalSetting(name: string): string {
  return diffNameOf(name);
}

/** Flags keyed by setting, remembering how each was spelled. */
function bySetting(flags: Flags): Map<string, { name: string; value: FlagValue }> {
  const out = new Map<string, { name: string; value: FlagValue }>();
  for (const [name, value] of Object.entries(flags)) {
    const setting = canonicalSetting(name);
    // When both spellings are given, the canonical one wins.
    if (!out.has(setting) || name === setting) out.set(setting, { name, value });
  }
  return out;
}

export function diffFlags(baseFlags: Flags, otherFlags: Flags): ConfigChange[] {
  const changes: ConfigChange[] = [];
  const baseSettings = bySetting(baseFlags);
  const otherSettings = bySetting(otherFlags);
  const settings = [...new Set([...baseSettings.keys(), ...otherSettings.keys()])].sort();
  for (const setting of settings) {
    const beforeEntry = baseSettings.get(setting);
    const afterEntry = otherSettings.get(setting);
    const before = beforeEntry?.value;
    const after = afterEntry?.value;
    const name = afterEntry?.name ?? beforeEntry?.name ?? setting;
    if (before !== undefined && after === undefined) {
      changes.push({
        section: "flag",
        key: name,
        kind: "removed",
        from: formatFlagValue(before),
        to: null,
        text: `${formatFlag(name, before)} removed`,
      });
    } else if (before === undefined && after !== undefined) {
      changes.push({
        section: "flag",
        key: name,
        kind: "added",
        from: null,
        to: formatFlagValue(after),
        text: `${formatFlag(name, after)} added`,
      });
    } else if (before !== undefined && after !== undefined && !sameFlagValue(before, after)) {
      const spelled =
        beforeEntry && afterEntry && beforeEntry.name !== afterEntry.name ? ` (was ${beforeEntry.name})` : "";
      changes.push({
        section: "flag",
        key: name,
        kind: "changed",
        from: formatFlagValue(before),
        to: formatFlagValue(after),
        text: `${name}: ${formatFlagValue(before)} → ${formatFlagValue(after)}${spelled}`,
      });
    }
  }
  return changes;
}

export function diffEnv(base: Record<string, string>, other: Record<string, string>): ConfigChange[] {
  const changes: ConfigChange[] = [];
  const names = [...new Set([...Object.keys(base), ...Object.keys(other)])].sort();
  for (const name of names) {
    const before = ownValue(base, name);
    const after = ownValue(other, name);
    if (before === after) continue;
    if (after === undefined) {
      changes.push({
        section: "env",
        key: name,
        kind: "removed",
        from: before ?? null,
        to: null,
        text: `${name}=${before} removed`,
      });
    } else if (before === undefined) {
      changes.push({ section: "env", key: name, kind: "added", from: null, to: after, text: `${name}=${after} added` });
    } else {
      changes.push({
        section: "env",
        key: name,
        kind: "changed",
        from: before,
        to: after,
        text: `${name}: ${before} → ${after}`,
      });
    }
  }
  return changes;
}

function engineWords(engine: string): string {
  return isUnknownEngine(engine) ? "not stated" : engine;
}

function fieldChange(
  section: ConfigChange["section"],
  key: string,
  label: string,
  before: string | number | undefined,
  after: string | number | undefined,
): ConfigChange | null {
  const from = before === undefined ? null : String(before);
  const to = after === undefined ? null : String(after);
  if (from === to) return null;
  const kind: ChangeKind = from === null ? "added" : to === null ? "removed" : "changed";
  return { section, key, kind, from, to, text: `${label}: ${from ?? "not set"} → ${to ?? "not set"}` };
}

const WORKLOAD_LABELS: Record<string, string> = {
  dataset: "dataset",
  input_len: "input length",
  output_len: "output length",
  num_prompts: "prompts",
  temperature: "temperature",
};
const SPECULATIVE_LABELS: Record<string, string> = {
  method: "speculative method",
  draft_model: "draft model",
  num_speculative_tokens: "speculative tokens",
  acceptance_rate: "acceptance rate",
};

function diffRecord(
  section: ConfigChange["section"],
  labels: Record<string, string>,
  base: Record<string, string | number | undefined> | undefined,
  other: Record<string, string | number | undefined> | undefined,
): ConfigChange[] {
  const keys = [...new Set([...Object.keys(labels), ...Object.keys(base ?? {}), ...Object.keys(other ?? {})])];
  return keys
    .map((key) =>
      fieldChange(
        section,
        key,
        ownValue(labels, key) ?? key,
        base && ownValue(base, key),
        other && ownValue(other, key),
      ),
    )
    .filter((change): change is ConfigChange => change !== null);
}

/** Everything that differs between the baseline's configuration and another run's, engine first, flags last. */
export function diffConfigs(base: ComparableConfig, other: ComparableConfig): ConfigChange[] {
  const fields = [
    // An engine nothing stated reads as such, not as an engine called "unknown".
    fieldChange("engine", "engine", "engine", engineWords(base.engine), engineWords(other.engine)),
    fieldChange("engine", "engine_version", "engine version", base.engine_version, other.engine_version),
    fieldChange("model", "model", "model", base.model, other.model),
    fieldChange("hardware", "gpu", "GPU", base.hardware?.gpu, other.hardware?.gpu),
    fieldChange("hardware", "gpu_count", "GPU count", base.hardware?.gpu_count, other.hardware?.gpu_count),
    fieldChange(
      "hardware",
      "gpu_memory_mib",
      "GPU memory (MiB)",
      base.hardware?.gpu_memory_mib,
      other.hardware?.gpu_memory_mib,
    ),
  ].filter((change): change is ConfigChange => change !== null);
  return [
    ...fields,
    ...diffRecord("workload", WORKLOAD_LABELS, base.workload, other.workload),
    ...diffRecord("speculative", SPECULATIVE_LABELS, base.speculative, other.speculative),
    ...diffEnv(base.env, other.env),
    ...withEffectiveSettings(base, other, diffFlags(base.flags, other.flags)),
  ];
}

/**
 * Each flag change the engine catalogue knows, with its effective setting on both sides; one that leaves the
 * setting as it was (the default already on) says so in its text, so it does not read as a change.
 */
function withEffectiveSettings(
  base: ComparableConfig,
  other: ComparableConfig,
  changes: readonly ConfigChange[],
): ConfigChange[] {
  const bySetting = new Map(effectiveChanges(base, other).map((change) => [change.setting, change]));
  return changes.map((change) => {
    // A removed flag was spelled for the baseline's engine, an added or changed one for the other run's.
    const engines = change.kind === "removed" ? [base.engine, other.engine] : [other.engine, base.engine];
    const settingId = engines.map((engine) => settingIdOfFlag(engine, change.key)).find((id) => id !== undefined);
    const effective = settingId === undefined ? undefined : bySetting.get(settingId);
    if (!effective) return change;
    if (effective.changed !== false) return { ...change, effective };
    const separator = change.kind === "changed" ? ";" : ":";
    const sameSetting = `${effective.label} ${effectiveSides(effective)}, no change`;
    return { ...change, effective, text: `${change.text}${separator} ${sameSetting}` };
  });
}
