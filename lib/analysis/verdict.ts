/**
 * The one-line verdict of a comparison, the sentence an engineer pastes into chat:
 * `CUDA graphs on vs --disable-cuda-graph: single stream 27 → 63.6 tok/s (+135.6%); peak 2,216 → 2,370 tok/s (+6.9%)`.
 * Each side is named by what changed between them (a flag, an engine, a model), falling back to the run
 * names when more than two things changed or nothing did. Built from the comparison's computed figures.
 */

import { engineDisplayName, shortModelName } from "@/lib/document/names";
import { formatChangeLine, formatNumber } from "@/lib/format";
import { ownValue } from "@/lib/own-value";
import type { ConfigChange } from "./config-diff";

/**
 * Settings whose switch reads better in words. A `--disable-X` flag removed reads "X on", an `--enable-X`
 * removed "X off"; `--enforce-eager` is vLLM's way of turning CUDA graphs off.
 */
const SETTING_WORDS: Record<string, string> = {
  "cuda-graph": "CUDA graphs",
  "cuda-graphs": "CUDA graphs",
  "radix-cache": "radix cache",
  "prefix-caching": "prefix caching",
  "chunked-prefill": "chunked prefill",
  "custom-all-reduce": "custom all-reduce",
  "overlap-schedule": "overlap scheduling",
  "mixed-chunk": "mixed chunking",
  "torch-compile": "torch.compile",
  "expert-parallel": "expert parallelism",
  "dp-attention": "DP attention",
};

function words(setting: string): string {
  return ownValue(SETTING_WORDS, setting) ?? setting.replace(/-/g, " ");
}

/** How the side that has a switch flag, and the side that lacks it, read. */
function switchSides(flag: string): { present: string; absent: string } {
  if (flag === "--enforce-eager") return { present: flag, absent: "CUDA graphs on" };
  const disable = /^--(?:disable|no)-(.+)$/.exec(flag);
  if (disable) return { present: flag, absent: `${words(disable[1]!)} on` };
  const enable = /^--enable-(.+)$/.exec(flag);
  if (enable) return { present: flag, absent: `${words(enable[1]!)} off` };
  return { present: flag, absent: `no ${flag}` };
}

function flagValueText(name: string, value: string): string {
  return value === "on" ? name : value === "off" ? `${name} off` : `${name} ${value}`;
}

/** The two sides of one change: [what the other run has, what the baseline has]. */
function sidesOf(change: ConfigChange): [string, string] | null {
  if (change.section === "flag") {
    if (change.kind === "removed") {
      if (change.from === "on") {
        const { present, absent } = switchSides(change.key);
        return [absent, present];
      }
      return [`no ${change.key}`, flagValueText(change.key, change.from ?? "")];
    }
    if (change.kind === "added") {
      if (change.to === "on") {
        const { present, absent } = switchSides(change.key);
        return [present, absent];
      }
      return [flagValueText(change.key, change.to ?? ""), `no ${change.key}`];
    }
    return [flagValueText(change.key, change.to ?? ""), flagValueText(change.key, change.from ?? "")];
  }
  if (change.section === "env") {
    return [
      change.to === null ? `no ${change.key}` : `${change.key}=${change.to}`,
      change.from === null ? `no ${change.key}` : `${change.key}=${change.from}`,
    ];
  }
  const show = (value: string | null) => {
    if (value === null) return "not set";
    if (change.key === "engine") return engineDisplayName(value);
    if (change.key === "model") return shortModelName(value);
    return value;
  };
  if (change.section === "engine" || change.section === "model") return [show(change.to), show(change.from)];
  if (change.section === "hardware" && change.key === "gpu_count")
    return [`${show(change.to)} GPUs`, `${show(change.from)} GPUs`];
  const label = change.text.split(":")[0] ?? change.key;
  return [`${label} ${show(change.to)}`, `${label} ${show(change.from)}`];
}

/** [this side, the baseline side] in words, or the run names when the changes do not name them briefly. */
export function verdictSides(
  changes: readonly ConfigChange[],
  names: { label: string; baseLabel: string },
): [string, string] {
  // An engine switch usually brings its own spelling of flags: the engines name the sides.
  const engine = changes.find((change) => change.key === "engine");
  const relevant = engine ? [engine, ...changes.filter((change) => change.key === "engine_version")] : changes;
  if (relevant.length === 0 || relevant.length > 2) return [names.label, names.baseLabel];
  const sides = relevant.map(sidesOf);
  if (sides.some((side) => side === null)) return [names.label, names.baseLabel];
  const pairs = sides as [string, string][];
  if (engine && pairs.length === 2) {
    // "SGLang 0.5.8 vs vLLM 0.11.0"; a side whose version is not stated is its engine alone ("vLLM 0.11.0 vs
    // SGLang", never "SGLang not set").
    const versionChange = relevant[1]!;
    const withVersion = (name: string, version: string | null) => (version === null ? name : `${name} ${version}`);
    return [withVersion(pairs[0]![0], versionChange.to), withVersion(pairs[0]![1], versionChange.from)];
  }
  return [pairs.map((pair) => pair[0]).join(" + "), pairs.map((pair) => pair[1]).join(" + ")];
}

export interface VerdictFigures {
  singleStream: { base: number | null; value: number | null; inconclusive: boolean };
  peak: { base: number | null; value: number | null; inconclusive: boolean };
  /** At the SLO, when targets are set: tok/s (per GPU when both runs state their GPU count). */
  slo?: { text: string; base: number | null; value: number | null; unit: string } | undefined;
  /** At equal interactivity, when both frontiers share a range. */
  interactivity?: { at: number; base: number | null; value: number | null } | undefined;
}

function figure(label: string, base: number | null, value: number | null, unit: string, inconclusive = false) {
  if (base === null || value === null) return null;
  return `${label} ${formatChangeLine(base, value, unit)}${inconclusive ? " (inconclusive)" : ""}`;
}

/** The sentence: "<this> vs <baseline>: single stream …; peak …[; at SLO …][; at N tok/s/user …]". */
export function verdictLine(sides: [string, string], figures: VerdictFigures): string {
  const parts = [
    figure(
      "single stream",
      figures.singleStream.base,
      figures.singleStream.value,
      "tok/s",
      figures.singleStream.inconclusive,
    ),
    figure("peak", figures.peak.base, figures.peak.value, "tok/s", figures.peak.inconclusive),
  ];
  if (figures.slo) parts.push(figure(`at ${figures.slo.text}:`, figures.slo.base, figures.slo.value, figures.slo.unit));
  if (figures.interactivity)
    parts.push(
      figure(
        `at ${formatNumber(figures.interactivity.at)} tok/s/user:`,
        figures.interactivity.base,
        figures.interactivity.value,
        "tok/s/GPU",
      ),
    );
  const said = parts.filter((part): part is string => part !== null);
  return `${sides[0]} vs ${sides[1]}: ${said.length > 0 ? said.join("; ") : "no figure both runs state"}`;
}
