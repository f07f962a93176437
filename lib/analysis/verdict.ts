/**
 * The verdict of a comparison: the sentence an engineer pastes into chat, which says what was measured and no
 * more. `CUDA graphs on vs CUDA graphs off: single stream 27 → 63.6 tok/s (+135.6%); peak at C=128: 2,216 →
 * 2,370 tok/s (+6.9%)`.
 *
 * - The sides are named by what differs between the two configurations, in a fixed order: engine and version,
 *   model, GPU, speculative decoding, then the launch flags whose *effective* setting changed (a flag that
 *   restates an engine's default changes nothing) and environment variables; the workload when nothing else
 *   differs. Never by a label both share.
 * - Runs that are not like for like (model, GPU, GPU count or workload differ) say so in the first words.
 * - Peaks are compared over the load levels both runs measured; without one in common the clause says so.
 * - Interactivity names the latency statistic it was computed at; the SLO clause states its targets and
 *   statistic, and quotes the highest measured level that meets them.
 * - A change within noise, or whose intervals overlap, says so and is never coloured.
 */

import { engineDisplayName, shortModelName } from "@/lib/document/names";
import type { ResultPoint } from "@/lib/document/schema";
import { formatChangeLine, formatLoadLevel, formatNumber, formatPercentChange, relativeChange } from "@/lib/format";
import type { ConfigChange } from "./config-diff";
import { judgeChange, type Verdict } from "./deltas";
import type { Spread } from "./intervals";
import { levelOf } from "./levels";

/** What a side is described by: at most this many parts, the rest counted. */
const SIDE_PARTS_MAX = 4;

/** A flag change as lib/engines reads it: the setting's effective value on each side. */
interface EffectiveSide {
  value: string | null;
  source: "flag" | "default" | "unknown";
}
interface EffectiveReading {
  label: string;
  from: EffectiveSide;
  to: EffectiveSide;
  changed: boolean | null;
}
type ReadChange = ConfigChange & { effective?: EffectiveReading | undefined };

function effectiveOf(change: ConfigChange): EffectiveReading | undefined {
  return (change as ReadChange).effective;
}

function flagValueText(name: string, value: string): string {
  return value === "on" ? name : value === "off" ? `${name} off` : `${name} ${value}`;
}

/** A side of a setting whose effective value is known: "CUDA graphs off", "max num seqs 8"; else "at its default". */
function effectiveSideText(reading: EffectiveReading, side: EffectiveSide, flag: string, flagValue: string | null) {
  if (side.value === null) return `${reading.label} unknown`;
  if (side.value === "on" || side.value === "off") return `${reading.label} ${side.value}`;
  // A value setting reads best as typed: `--max-num-seqs 8`.
  return side.source === "flag" && flagValue !== null
    ? flagValueText(flag, flagValue)
    : `${reading.label} ${side.value}`;
}

/** [this side, baseline side] of one flag change. */
function flagSides(change: ConfigChange): [string, string] {
  const reading = effectiveOf(change);
  if (reading) {
    return [
      effectiveSideText(reading, reading.to, change.key, change.to),
      effectiveSideText(reading, reading.from, change.key, change.from),
    ];
  }
  // Not in the catalogue: say what was typed, never what its absence would mean (engines' defaults differ).
  if (change.kind === "removed") return [`without ${change.key}`, flagValueText(change.key, change.from ?? "")];
  if (change.kind === "added") return [flagValueText(change.key, change.to ?? ""), `without ${change.key}`];
  return [flagValueText(change.key, change.to ?? ""), flagValueText(change.key, change.from ?? "")];
}

/** The configuration fields a side's name is built from. */
export interface SideConfig {
  engine: string;
  engine_version?: string | undefined;
  model: string;
  hardware?: { gpu?: string | undefined; gpu_count?: number | undefined } | undefined;
}

function engineText(config: SideConfig): string {
  const name = engineDisplayName(config.engine);
  return config.engine_version ? `${name} ${config.engine_version}` : name;
}

function gpuText(config: SideConfig): string {
  const gpu = config.hardware?.gpu;
  const count = config.hardware?.gpu_count;
  if (gpu && count !== undefined) return `${count}× ${gpu}`;
  if (gpu) return `${gpu} (GPU count not stated)`;
  if (count !== undefined) return `${count} GPU${count === 1 ? "" : "s"}`;
  return "GPU not stated";
}

function fieldSides(change: ConfigChange): [string, string] {
  const label = change.text.split(":")[0] ?? change.key;
  const show = (value: string | null) => (value === null ? `${label} not stated` : `${label} ${value}`);
  return [show(change.to), show(change.from)];
}

interface SidePart {
  group: string;
  sides: [string, string];
}

/**
 * The parts that name the two sides, in order: engine and version, model, GPU, speculative decoding, workload,
 * flags whose effective setting changed, environment variables.
 */
function sideParts(
  base: SideConfig,
  other: SideConfig,
  changes: readonly ConfigChange[],
): { parts: SidePart[]; unknown: SidePart[] } {
  const parts: SidePart[] = [];
  const unknown: SidePart[] = [];
  const has = (key: string) => changes.some((change) => change.key === key && change.section !== "flag");
  const engineChanged = has("engine");
  if (engineChanged || has("engine_version"))
    parts.push({ group: "engine", sides: [engineText(other), engineText(base)] });
  if (has("model")) parts.push({ group: "model", sides: [shortModelName(other.model), shortModelName(base.model)] });
  if (has("gpu") || has("gpu_count")) parts.push({ group: "gpu", sides: [gpuText(other), gpuText(base)] });
  for (const change of changes.filter((item) => item.section === "speculative"))
    parts.push({ group: "speculative", sides: fieldSides(change) });
  for (const change of changes.filter((item) => item.section === "flag")) {
    const reading = effectiveOf(change);
    if (reading?.changed === false) continue;
    // A side whose setting cannot be read (flags not recorded, a default unknown for its version) names nothing:
    // the change is counted, and said only when nothing else tells the sides apart.
    if (reading?.changed === null) {
      unknown.push({ group: "flags", sides: flagSides(change) });
      continue;
    }
    // Across engines the flags are two vocabularies: only settings the catalogue knows on both sides name them.
    if (engineChanged && !reading) continue;
    parts.push({ group: "flags", sides: flagSides(change) });
  }
  for (const change of changes.filter((item) => item.section === "env")) {
    parts.push({
      group: "env",
      sides: [
        change.to === null ? `without ${change.key}` : `${change.key}=${change.to}`,
        change.from === null ? `without ${change.key}` : `${change.key}=${change.from}`,
      ],
    });
  }
  // A different workload is said by the "not like for like" caveat; it names the sides only when nothing else does.
  if (parts.length === 0)
    for (const change of changes.filter((item) => item.section === "workload"))
      parts.push({ group: "workload", sides: fieldSides(change) });
  if (parts.length === 0) return { parts: unknown, unknown: [] };
  return { parts, unknown };
}

function joinParts(parts: readonly SidePart[], side: 0 | 1): string {
  let text = "";
  parts.forEach((part, index) => {
    if (index > 0) text += part.group === parts[index - 1]!.group && part.group !== "engine" ? " + " : " · ";
    text += part.sides[side];
  });
  return text;
}

export interface VerdictSides {
  /** [this side, the baseline side]. */
  sides: [string, string];
  /** Changes that differ but were not named, counted ("+2 more changes"). */
  unnamed: number;
  /** Said after the sides when every flag that differs restates a default: "same effective settings". */
  sameEffective?: boolean;
}

/**
 * The two sides in words. With nothing that differs in the configuration (or only flags restating defaults),
 * the run names stand for the sides, each with its id when the names are the same.
 */
export function verdictSides(
  base: SideConfig,
  other: SideConfig,
  changes: readonly ConfigChange[],
  names: { label: string; baseLabel: string; id: string; baseId: string },
): VerdictSides {
  const { parts, unknown } = sideParts(base, other, changes);
  if (parts.length === 0) {
    const sameEffective = changes.some((change) => effectiveOf(change)?.changed === false);
    if (names.label !== names.baseLabel) return { sides: [names.label, names.baseLabel], unnamed: 0, sameEffective };
    return {
      sides: [`${names.label} (run ${names.id})`, `${names.baseLabel} (run ${names.baseId})`],
      unnamed: 0,
      sameEffective,
    };
  }
  const named = parts.slice(0, SIDE_PARTS_MAX);
  return {
    sides: [joinParts(named, 0), joinParts(named, 1)],
    unnamed: parts.length - named.length + unknown.length,
  };
}

export interface VerdictClause {
  text: string;
  /** better / worse colour the clause; noise, inconclusive and none do not. */
  verdict: Verdict;
}

export interface VerdictSentence {
  /** The whole sentence, as pasted into chat and given as the link preview's description. */
  text: string;
  /** The caveat and the sides: "Not like for like (model, GPU differ) — SGLang 0.5.8 · … vs vLLM 0.11.0 · …". */
  lead: string;
  /** "Not like for like (model, GPU differ)", or null for a like-for-like pair. */
  caveat: string | null;
  sides: [string, string];
  /** The sides as the sentence says them: "A vs B", with "(+2 more changes)" when not every change is named. */
  versus: string;
  /** The figures, the headline first: the clause the sentence is coloured by. */
  clauses: VerdictClause[];
  /** Faster (a figure better) but less accurate (a score worse beyond noise): never read as simply better. */
  tradeOff: boolean;
}

interface Judged {
  base: number | null;
  value: number | null;
  verdict: Verdict;
}

function qualifier(verdict: Verdict, noisePct: number): string {
  if (verdict === "inconclusive") return " (inconclusive: the intervals overlap)";
  if (verdict === "noise") return ` (within ±${formatNumber(noisePct)}% noise)`;
  return "";
}

function changeClause(label: string, figure: Judged, unit: string, noisePct: number): VerdictClause | null {
  if (figure.base === null || figure.value === null) return null;
  return {
    text: `${label} ${formatChangeLine(figure.base, figure.value, unit)}${qualifier(figure.verdict, noisePct)}`,
    verdict: figure.verdict,
  };
}

/** A series' figures the peak is read from: its points (means over repeats) and their spreads by level key. */
export interface PeakSource {
  results: readonly ResultPoint[];
  spreads: Record<string, { output_throughput?: Spread | undefined }>;
}

function highest(results: readonly ResultPoint[], keys: Set<string> | null) {
  let best: { value: number; point: ResultPoint; key: string } | null = null;
  for (const point of results) {
    const key = levelOf(point).key;
    if (keys && !keys.has(key)) continue;
    const value = point.output_throughput;
    if (typeof value !== "number" || value <= 0) continue;
    if (!best || value > best.value) best = { value, point, key };
  }
  return best;
}

/**
 * Peak output throughput, compared over the load levels both runs measured: "peak at C=128: a → b", "peak over
 * the levels both measured: a (C=64) → b (C=128)", or, with no level in common, each run's own peak and a
 * sentence that says they were not measured at a common load.
 */
export function peakClause(base: PeakSource, other: PeakSource, noise: number): VerdictClause | null {
  const baseKeys = new Set(base.results.map((point) => levelOf(point).key));
  const common = new Set(other.results.map((point) => levelOf(point).key).filter((key) => baseKeys.has(key)));
  const noisePct = noise * 100;
  if (common.size === 0) {
    const own = highest(other.results, null);
    const baseOwn = highest(base.results, null);
    if (!own || !baseOwn) return null;
    return {
      text: `peak ${formatNumber(baseOwn.value)} tok/s (${formatLoadLevel(baseOwn.point)}) → ${formatNumber(own.value)} tok/s (${formatLoadLevel(own.point)}), not at a common load level`,
      verdict: "none",
    };
  }
  const own = highest(other.results, common);
  const baseOwn = highest(base.results, common);
  if (!own || !baseOwn) return null;
  const verdict = judgeChange(
    relativeChange(baseOwn.value, own.value),
    "higher",
    noise,
    base.spreads[baseOwn.key]?.output_throughput,
    other.spreads[own.key]?.output_throughput,
  );
  const everyLevelShared = common.size === baseKeys.size && common.size === other.results.length;
  const scope = everyLevelShared ? "" : " over the levels both measured";
  const text =
    own.key === baseOwn.key
      ? `peak${scope} at ${formatLoadLevel(own.point)}: ${formatChangeLine(baseOwn.value, own.value, "tok/s")}`
      : `peak${scope}: ${formatNumber(baseOwn.value)} tok/s (${formatLoadLevel(baseOwn.point)}) → ${formatNumber(own.value)} tok/s (${formatLoadLevel(own.point)}) (${formatPercentChange(relativeChange(baseOwn.value, own.value))})`;
  return { text: `${text}${qualifier(verdict, noisePct)}`, verdict };
}

export interface SloClauseInput {
  /** "TTFT ≤ 500 ms, TPOT ≤ 50 ms (p99)". */
  targets: string;
  base: { value: number | null; load: string | null; status: string; reason: string | null };
  value: { value: number | null; load: string | null; status: string; reason: string | null };
  unit: string;
  verdict: Verdict;
}

function sloSideText(side: SloClauseInput["base"], who: string): string | null {
  if (side.status === "none") return `${who} meets it at none of its measured levels`;
  if (side.status === "unknown") return `${who} cannot be judged: ${side.reason ?? "no level could be judged"}`;
  return null;
}

/** Capacity at the SLO: the highest measured level that meets it, on each side. */
export function sloClause(input: SloClauseInput, noise: number): VerdictClause {
  const label = `at SLO ${input.targets}`;
  const problems = [sloSideText(input.base, "the baseline"), sloSideText(input.value, "this run")].filter(
    (text): text is string => text !== null,
  );
  if (problems.length > 0 || input.base.value === null || input.value.value === null) {
    return {
      text: `${label}: ${problems.join("; ") || "no throughput stated at the level that meets it"}`,
      verdict: "none",
    };
  }
  const where =
    input.base.load === input.value.load
      ? `highest level meeting it ${input.value.load}`
      : `highest level meeting it ${input.base.load} → ${input.value.load}`;
  return {
    text: `${label}, ${where}: ${formatChangeLine(input.base.value, input.value.value, input.unit)}${qualifier(input.verdict, noise * 100)}`,
    verdict: input.verdict,
  };
}

export interface VerdictParts {
  sides: VerdictSides;
  /** Fields that differ between the two configurations beyond what the experiment changed (model, GPU…). */
  notLikeForLike: string[];
  /** Sides a validity check marked ("the baseline", "this run"): said in the caveat. */
  marked?: string[];
  singleStream: Judged;
  peak: VerdictClause | null;
  slo: VerdictClause | null;
  /** Throughput per GPU at equal interactivity, computed at a named latency statistic. */
  interactivity: { at: number; stat: string; figure: Judged } | null;
  /** The accuracy scores both runs state (accuracyClause): a drop beyond noise leads the sentence. */
  accuracy?: VerdictClause | null;
  noise: number;
}

/** The sentence: "[Not like for like (…) — ]<this> vs <baseline>: <headline>; <the other clauses>". */
export function verdictSentence(parts: VerdictParts): VerdictSentence {
  const noisePct = parts.noise * 100;
  const cautions = [
    parts.notLikeForLike.length > 0
      ? `Not like for like (${parts.notLikeForLike.join(", ")} differ${parts.notLikeForLike.length === 1 ? "s" : ""})`
      : null,
    parts.marked && parts.marked.length > 0
      ? `${parts.marked.join(" and ")} failed a validity check`.replace(
          /^t/,
          parts.notLikeForLike.length > 0 ? "t" : "T",
        )
      : null,
  ].filter((text): text is string => text !== null);
  const caveat = cautions.length > 0 ? cautions.join("; ") : null;
  const [mine, theirs] = parts.sides.sides;
  const more =
    parts.sides.unnamed > 0 ? ` (+${parts.sides.unnamed} more change${parts.sides.unnamed === 1 ? "" : "s"})` : "";
  const versus = `${mine} vs ${theirs}${more}`;
  const lead = `${caveat ? `${caveat} — ` : ""}${versus}`;
  // Targets someone set are the question they asked: their answer leads. An SLO neither side can be judged
  // against answers nothing, so it follows the figures that were measured instead of hiding them.
  const sloAnswers = parts.slo !== null && parts.slo.verdict !== "none";
  const accuracyFell = parts.accuracy?.verdict === "worse";
  const clauses = [
    // A speed-up bought with accuracy is the most expensive mistake a comparison can let through: said first.
    accuracyFell ? parts.accuracy : null,
    sloAnswers ? parts.slo : null,
    changeClause("single stream", parts.singleStream, "tok/s", noisePct),
    parts.peak,
    parts.interactivity
      ? changeClause(
          `at ${formatNumber(parts.interactivity.at)} tok/s/user (${parts.interactivity.stat} TPOT):`,
          parts.interactivity.figure,
          "tok/s/GPU",
          noisePct,
        )
      : null,
    sloAnswers ? null : parts.slo,
    accuracyFell ? null : (parts.accuracy ?? null),
  ].filter((clause): clause is VerdictClause => clause !== null);
  const tradeOff = accuracyFell && clauses.some((clause) => clause.verdict === "better");
  const said = clauses.length > 0 ? clauses.map((clause) => clause.text).join("; ") : "no figure both runs state";
  const text = `${lead}: ${tradeOff ? "trade-off, " : ""}${said}`;
  return { text, lead, caveat, sides: [mine, theirs], versus, clauses, tradeOff };
}
