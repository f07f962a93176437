/**
 * Engine versions as runs state them, ordered so a catalogue default can name the versions it holds for.
 *
 * Two shapes exist. Releases (vLLM, SGLang, TensorRT-LLM) follow Python's version scheme: `0.11.0`, `v0.5.8`,
 * `0.5.8.post1`, `1.0.0rc3`, `0.6.4.dev12+gabc`, ordered dev < alpha < beta < rc < final < post. llama.cpp
 * names its builds by number: `b6200`, or `b6200 (abc1234)` as llama-bench writes it. A release and a build never
 * compare: a range written in one shape says nothing about a version in the other.
 */

export type EngineVersion =
  | { kind: "release"; release: readonly number[]; phaseRank: number; phaseNumber: number; post: number }
  | { kind: "build"; build: number };

/** Where a pre-release sits against the final release of the same numbers. */
const PHASE_RANKS: ReadonlyMap<string, number> = new Map([
  ["dev", 0],
  ["a", 1],
  ["alpha", 1],
  ["b", 2],
  ["beta", 2],
  ["c", 3],
  ["rc", 3],
  ["pre", 3],
  ["preview", 3],
]);
const FINAL_RANK = 4;

const BUILD = /^b(\d+)(?:$|[\s(-])/i;
const RELEASE_NUMBERS = /^\d[\d.]*/;
const PRE_RELEASE = /^[.-]?(dev|alpha|beta|preview|pre|rc|a|b|c)[.-]?(\d*)/;
const POST_RELEASE = /^[.-]?post[.-]?(\d*)/;
const DEV_RELEASE = /^[.-]?dev[.-]?\d*/;

/** The version a run states, or null when it is missing or in neither shape ("main", "nightly", a bare commit). */
export function parseEngineVersion(text: string | undefined): EngineVersion | null {
  const trimmed = text?.trim() ?? "";
  if (trimmed === "") return null;
  const build = BUILD.exec(trimmed);
  if (build) return { kind: "build", build: Number(build[1]) };
  // A local label (`+cu128`, `+g1234abc`) says how it was built, not where it sits among releases.
  const plus = trimmed.indexOf("+");
  let rest = (plus >= 0 ? trimmed.slice(0, plus) : trimmed).replace(/^v/i, "").toLowerCase();
  const numbers = RELEASE_NUMBERS.exec(rest)?.[0] ?? "";
  // The numbers end before a separator that starts a suffix (`0.5.8.post1`), never on a dot of their own.
  const release = numbers.replace(/\.$/, "");
  if (release === "" || release.includes("..")) return null;
  rest = rest.slice(release.length);
  const pre = PRE_RELEASE.exec(rest);
  if (pre) rest = rest.slice(pre[0].length);
  const post = POST_RELEASE.exec(rest);
  if (post) rest = rest.slice(post[0].length);
  const dev = DEV_RELEASE.exec(rest);
  if (dev) rest = rest.slice(dev[0].length);
  if (rest !== "") return null;
  const phase = pre?.[1];
  return {
    kind: "release",
    release: release.split(".").map(Number),
    phaseRank: phase === undefined ? FINAL_RANK : (PHASE_RANKS.get(phase) ?? FINAL_RANK),
    phaseNumber: pre?.[2] ? Number(pre[2]) : 0,
    post: post ? Number(post[1] || 0) + 1 : 0,
  };
}

/** Negative, zero or positive like a sort comparator; null when one is a release and the other a build. */
export function compareEngineVersions(left: EngineVersion, right: EngineVersion): number | null {
  if (left.kind === "build" || right.kind === "build") {
    return left.kind === "build" && right.kind === "build" ? Math.sign(left.build - right.build) : null;
  }
  const length = Math.max(left.release.length, right.release.length);
  for (let index = 0; index < length; index += 1) {
    const difference = (left.release[index] ?? 0) - (right.release[index] ?? 0);
    if (difference !== 0) return Math.sign(difference);
  }
  if (left.phaseRank !== right.phaseRank) return Math.sign(left.phaseRank - right.phaseRank);
  if (left.phaseNumber !== right.phaseNumber) return Math.sign(left.phaseNumber - right.phaseNumber);
  return Math.sign(left.post - right.post);
}

type Operator = ">=" | ">" | "<=" | "<" | "=";
interface Bound {
  operator: Operator;
  version: EngineVersion;
}

const BOUND = /^(>=|<=|>|<|=)(\S+)$/;

/**
 * A range as the catalogue writes it: `*` (every version), or bounds separated by spaces that all must hold,
 * `>=0.5.4 <0.8.0`, `>=b6327`. Null when the text is not such a range.
 */
export function parseVersionRange(range: string): readonly Bound[] | null {
  const trimmed = range.trim();
  if (trimmed === "*") return [];
  const parts = trimmed.split(/\s+/);
  const bounds: Bound[] = [];
  for (const part of parts) {
    const match = BOUND.exec(part);
    const version = match ? parseEngineVersion(match[2]) : null;
    if (!match || !version) return null;
    bounds.push({ operator: match[1] as Operator, version });
  }
  const kinds = new Set(bounds.map((bound) => bound.version.kind));
  return bounds.length > 0 && kinds.size === 1 ? bounds : null;
}

function holds(operator: Operator, comparison: number): boolean {
  switch (operator) {
    case ">=":
      return comparison >= 0;
    case ">":
      return comparison > 0;
    case "<=":
      return comparison <= 0;
    case "<":
      return comparison < 0;
    case "=":
      return comparison === 0;
  }
}

/** Whether a version lies in a range; a version of the other shape (a build against releases) lies in none. */
export function versionInRange(version: EngineVersion, range: string): boolean {
  const bounds = parseVersionRange(range);
  if (bounds === null) return false;
  return bounds.every((bound) => {
    const comparison = compareEngineVersions(version, bound.version);
    return comparison !== null && holds(bound.operator, comparison);
  });
}
