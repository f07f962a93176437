/**
 * SLO tiers: named latency targets a configuration is sized against (docs/comparing.md#capacity). A tier holds
 * TTFT, TPOT and/or end-to-end targets at one statistic; at a percentile, its attainment is that percentile's
 * share of requests (p99: 99% of requests within every target). Presets come from published service levels
 * where one exists; the user may type any other, and every tier travels in the comparison's URL:
 * `tiers=interactive,chat,fast:ttft=300:tpot=25:p95`.
 */
import { COMPARE_STATS, type CompareStat } from "./lines";
import type { SloTargets } from "./slo";

export interface SloTier extends SloTargets {
  /** How the URL names it: a preset's id, or the typed tier's name. */
  id: string;
  name: string;
  /** Where a preset's targets come from; null for a typed tier. */
  source: string | null;
}

/**
 * Interactive and chat are MLPerf Inference's two Llama-2-70B server scenarios (v5.0 rules: p99 TTFT and p99
 * TPOT); agentic and batch are ours, stated so they can be argued with: an agent loop waits on decode speed
 * more than on the first token (50 tok/s/user at p90, first token within 3 s of a long, mostly cached prompt),
 * and a batch job only on each request finishing within ten minutes.
 */
export const PRESET_TIERS: readonly SloTier[] = [
  {
    id: "interactive",
    name: "Interactive",
    ttft_ms: 450,
    tpot_ms: 40,
    e2el_ms: null,
    stat: "p99",
    source: "MLPerf Inference v5.0, Llama-2-70B interactive scenario",
  },
  {
    id: "chat",
    name: "Chat",
    ttft_ms: 2000,
    tpot_ms: 200,
    e2el_ms: null,
    stat: "p99",
    source: "MLPerf Inference v5.0, Llama-2-70B server scenario",
  },
  {
    id: "agentic",
    name: "Agentic",
    ttft_ms: 3000,
    tpot_ms: 20,
    e2el_ms: null,
    stat: "p90",
    source: "servebench: decode speed first (50 tok/s per user), a long prompt's first token within 3 s",
  },
  {
    id: "batch",
    name: "Batch",
    ttft_ms: null,
    tpot_ms: null,
    e2el_ms: 600_000,
    stat: "p99",
    source: "servebench: every request done within 10 minutes",
  },
];

export const DEFAULT_TIER_IDS = PRESET_TIERS.map((tier) => tier.id);
/** More tiers than this make the tables unreadable; the rest of a longer list is ignored. */
export const MAX_TIERS = 8;
const MAX_TARGET_MS = 3_600_000;
const NAME = /^[\p{L}\p{N}][\p{L}\p{N} ._-]{0,39}$/u;

const MS = new Intl.NumberFormat("en-US", { maximumFractionDigits: 3 });

/** "TTFT ≤ 2,000 ms, TPOT ≤ 200 ms (p99)": a tier's targets, its numbers grouped for reading. */
export function tierText(tier: SloTargets): string {
  const parts: string[] = [];
  if (tier.ttft_ms !== null) parts.push(`TTFT ≤ ${MS.format(tier.ttft_ms)} ms`);
  if (tier.tpot_ms !== null) parts.push(`TPOT ≤ ${MS.format(tier.tpot_ms)} ms`);
  if (tier.e2el_ms != null) parts.push(`E2E ≤ ${MS.format(tier.e2el_ms)} ms`);
  return parts.length === 0 ? "" : `${parts.join(", ")} (${tier.stat})`;
}

/** "99% of requests" for p99; null for the mean, which no share of requests attains. */
export function attainmentText(stat: CompareStat): string | null {
  if (stat === "mean") return null;
  const share = stat === "median" ? 50 : Number(stat.slice(1));
  return `${share}% of requests`;
}

/**
 * One entry of `tiers`: a preset id, or `name:ttft=MS:tpot=MS:e2e=MS:STAT` (any of the targets, at least one;
 * the statistic p99 when left out). Null, with why, when it is neither.
 */
export function parseTier(entry: string): { tier: SloTier } | { problem: string } {
  const text = entry.trim();
  const preset = PRESET_TIERS.find((tier) => tier.id === text.toLowerCase());
  if (preset) return { tier: preset };
  const [rawName, ...parts] = text.split(":");
  const name = (rawName ?? "").trim();
  if (parts.length === 0)
    return {
      problem: `"${text.slice(0, 60)}" is neither a preset (${DEFAULT_TIER_IDS.join(", ")}) nor name:ttft=MS:tpot=MS:e2e=MS:p99`,
    };
  if (!NAME.test(name)) return { problem: `"${name.slice(0, 60)}" is not a tier name: letters, digits, space . _ -` };
  const tier: SloTier = { id: name, name, ttft_ms: null, tpot_ms: null, e2el_ms: null, stat: "p99", source: null };
  for (const raw of parts) {
    const part = raw.trim().toLowerCase();
    if (COMPARE_STATS.includes(part as CompareStat)) {
      tier.stat = part as CompareStat;
      continue;
    }
    const match = /^(ttft|tpot|e2e)=(.+)$/.exec(part);
    const value = match ? Number(match[2]) : Number.NaN;
    if (!match || !Number.isFinite(value) || value <= 0 || value > MAX_TARGET_MS)
      return {
        problem: `"${raw.slice(0, 40)}" in tier ${name} is not a target (ttft=MS, tpot=MS, e2e=MS, up to ${MAX_TARGET_MS}) nor a statistic (${COMPARE_STATS.join(", ")})`,
      };
    if (match[1] === "ttft") tier.ttft_ms = value;
    else if (match[1] === "tpot") tier.tpot_ms = value;
    else tier.e2el_ms = value;
  }
  if (tier.ttft_ms === null && tier.tpot_ms === null && tier.e2el_ms === null)
    return { problem: `tier ${name} has no target: give ttft=MS, tpot=MS and/or e2e=MS` };
  return { tier };
}

/**
 * The tiers a `tiers` value names, in its order, each id once; entries that are not tiers are left out (the page's
 * URL forgives; a saved comparison refuses them through tiersProblem). Null or empty: every preset.
 */
export function parseTiers(value: string | null | undefined): SloTier[] {
  if (value == null || value.trim() === "") return [...PRESET_TIERS];
  const tiers: SloTier[] = [];
  for (const entry of value.split(",")) {
    if (entry.trim() === "") continue;
    const parsed = parseTier(entry);
    if ("tier" in parsed && !tiers.some((tier) => tier.id === parsed.tier.id)) tiers.push(parsed.tier);
    if (tiers.length === MAX_TIERS) break;
  }
  return tiers.length > 0 ? tiers : [...PRESET_TIERS];
}

/** Why a `tiers` value is not one, naming the entry; null when every entry is a tier. */
export function tiersProblem(value: string): string | null {
  const entries = value.split(",").filter((entry) => entry.trim() !== "");
  if (entries.length > MAX_TIERS) return `at most ${MAX_TIERS} tiers (given ${entries.length})`;
  for (const entry of entries) {
    const parsed = parseTier(entry);
    if ("problem" in parsed) return parsed.problem;
  }
  return null;
}

/** A tier as the URL writes it: a preset's id, or its name and targets. */
export function tierQuery(tier: SloTier): string {
  if (tier.source !== null && PRESET_TIERS.some((preset) => preset.id === tier.id)) return tier.id;
  const parts = [tier.name];
  if (tier.ttft_ms !== null) parts.push(`ttft=${tier.ttft_ms}`);
  if (tier.tpot_ms !== null) parts.push(`tpot=${tier.tpot_ms}`);
  if (tier.e2el_ms != null) parts.push(`e2e=${tier.e2el_ms}`);
  if (tier.stat !== "p99") parts.push(tier.stat);
  return parts.join(":");
}

/** The `tiers` value of a list; empty when it is the presets in their order (the default). */
export function tiersQuery(tiers: readonly SloTier[]): string {
  const ids = tiers.map(tierQuery);
  return ids.join(",") === DEFAULT_TIER_IDS.join(",") ? "" : ids.join(",");
}
