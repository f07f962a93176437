/**
 * Detection quality, old rule against new, on synthetic nightly series and on a series replayed from real files:
 * how often a change is declared, false alarms per 100 steady nights, the delay in nights, and how often the
 * culprit (last good → first bad night) is named exactly. Pure (no database, no server): `npm run bench` prints it
 * first, and `npx tsx scripts/bench/detection.ts` prints it alone (docs/series.md, "Detection quality").
 *
 * The old rule is the window rule as it was: nothing judged before `min_samples` (5) baseline points, no floor under
 * the outlier filter's MAD, and "what changed" read from the run before the one that declared the regression. The
 * new is the rule as it is: judged from the third run with the noise model for short baselines, the MAD floor, and
 * each change's last good and first bad run.
 */
import fs from "node:fs";
import path from "node:path";
import { seededUniform, type Uniform } from "@/lib/seeded-random";
import { judgeSeries, type SeriesSample } from "@/lib/series/detect";
import { DEFAULT_SETTINGS } from "@/lib/series/settings";
import { runWhenMain } from "./alone";

const NIGHTS = 30;
export const DETECTION_SEEDS = 1000;

export interface Scenario {
  name: string;
  /** Relative noise of one run; ignored when `realNoise` is given. */
  noise: number;
  repeats: number;
  /** The night (0-based) the change starts; null for a steady series. */
  changeAt: number | null;
  /** The level's relative move at night n (0 before the change). */
  level: (night: number) => number;
  /** The change is one night only: a flake, to be seen (suspicious) and not made a regression. */
  flake?: boolean;
  /** Relative values of real repeated runs, resampled night by night instead of Gaussian noise. */
  realNoise?: readonly number[];
  better: "higher" | "lower";
}

function gaussian(random: Uniform): number {
  const u = 1 - random();
  const v = random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

export function seriesOf(scenario: Scenario, seed: number): SeriesSample[] {
  const random = seededUniform(seed * 7919 + scenario.name.length);
  const samples: SeriesSample[] = [];
  for (let night = 0; night < NIGHTS; night++) {
    const level = 100 * (1 + scenario.level(night));
    for (let repeat = 0; repeat < scenario.repeats; repeat++) {
      const noise = scenario.realNoise
        ? scenario.realNoise[Math.floor(random() * scenario.realNoise.length)]!
        : 1 + scenario.noise * gaussian(random);
      samples.push({ runId: `${night}:${repeat}`, group: `night-${night}`, values: [level * noise] });
    }
  }
  return samples;
}

const nightOf = (runId: string | null) => (runId === null ? null : Number(runId.split(":")[0]));

export interface RuleFigures {
  /** Share of series where the change was declared (a flake: seen as suspicious and not made a regression). */
  detected: number;
  /**
   * The same share among the series that raised no false regression before the change: where a rule's earlier false
   * alarm left the nights it took for a change out of its baseline (a narrower noise), its later detections are partly
   * that alarm's side effect.
   */
  detectedWithoutEarlierFalseAlarm: number | null;
  /** Regressions declared starting on a night without a change, per 100 such nights. */
  falseAlarmsPer100: number;
  /** Mean nights from the change to the night it was declared (null where nothing was declared). */
  delayNights: number | null;
  /** Per seed (index seed − 1): the night the change was declared, null where it was not (or the row has no change). */
  declaredNights: (number | null)[];
  /** Share of declared changes whose culprit range was named exactly: the night before the change → its first night. */
  culpritExact: number | null;
}

type Rule = "old" | "new";

export function judge(samples: readonly SeriesSample[], rule: Rule, better: "higher" | "lower") {
  return rule === "old"
    ? judgeSeries(samples, {
        better,
        settings: { ...DEFAULT_SETTINGS, noise_prior_pct: 0 },
        minBaselinePoints: DEFAULT_SETTINGS.min_samples,
        changePoints: false,
      })
    : judgeSeries(samples, { better, settings: DEFAULT_SETTINGS });
}

export function measureRule(scenario: Scenario, rule: Rule, seeds = DETECTION_SEEDS): RuleFigures {
  let detected = 0;
  let cleanSeries = 0;
  let cleanDetected = 0;
  let falseAlarms = 0;
  let steadyNights = 0;
  let delaySum = 0;
  let declared = 0;
  let exact = 0;
  const declaredNights: (number | null)[] = [];
  for (let seed = 1; seed <= seeds; seed++) {
    declaredNights.push(null);
    const samples = seriesOf(scenario, seed);
    const { points, changes } = judge(samples, rule, scenario.better);
    const changeAt = scenario.changeAt;
    const changeEnds = changeAt === null ? null : scenario.flake ? changeAt + 1 : NIGHTS;
    steadyNights += changeAt === null ? NIGHTS : changeAt + (scenario.flake ? NIGHTS - changeAt - 1 : 0);
    for (const change of changes) {
      if (change.kind !== "regression") continue;
      const start = nightOf(change.startRunId)!;
      const real = changeAt !== null && start >= changeAt && start < changeEnds!;
      if (!real) falseAlarms++;
    }
    if (changeAt === null) continue;
    if (scenario.flake) {
      const point = points[changeAt]!;
      const madeRegression = changes.some(
        (change) => change.kind === "regression" && nightOf(change.startRunId) === changeAt,
      );
      if (point.status === "worse" && !madeRegression) detected++;
      continue;
    }
    const regression = changes.find(
      (change) => change.kind === "regression" && nightOf(change.startRunId)! >= changeAt,
    );
    const earlierFalseAlarm = changes.some(
      (change) => change.kind === "regression" && nightOf(change.startRunId)! < changeAt,
    );
    if (!earlierFalseAlarm) {
      cleanSeries++;
      if (regression) cleanDetected++;
    }
    if (!regression) continue;
    detected++;
    declared++;
    const declaredNight = nightOf(regression.declaredRunId)!;
    delaySum += declaredNight - changeAt;
    declaredNights[seed - 1] = declaredNight;
    // What each rule names as the culprit on the night it declares the regression.
    const named =
      rule === "new"
        ? [nightOf(regression.lastGoodRunId), nightOf(regression.startRunId)]
        : [declaredNight - 1, declaredNight];
    if (named[0] === changeAt - 1 && named[1] === changeAt) exact++;
  }
  return {
    detected: detected / seeds,
    detectedWithoutEarlierFalseAlarm:
      scenario.flake || scenario.changeAt === null ? null : cleanDetected / Math.max(1, cleanSeries),
    falseAlarmsPer100: (100 * falseAlarms) / Math.max(1, steadyNights),
    delayNights: declared === 0 ? null : delaySum / declared,
    declaredNights,
    culpritExact: scenario.flake || scenario.changeAt === null ? null : declared === 0 ? 0 : exact / declared,
  };
}

const step = (at: number, size: number) => (night: number) => (night >= at ? size : 0);
const flake = (at: number, size: number) => (night: number) => (night === at ? size : 0);
const drift = (from: number, perNight: number) => (night: number) =>
  night >= from ? perNight * (night - from + 1) : 0;

/**
 * The relative TPOT of four real runs of one configuration (vLLM 0.25.1's sweep in tests/fixtures: two server
 * settings that do not bind at concurrency 2, two runs each), each divided by their mean: the run-to-run noise of a
 * real machine, its one slow run included, resampled night by night.
 */
export function realTpotNoise(fixtures: string): number[] {
  const folder = path.join(fixtures, "vllm", "vllm_sweep_v0.25.1");
  const values = fs
    .readdirSync(folder)
    .sort()
    .flatMap((combo) =>
      ["run=0.json", "run=1.json"].map(
        (file) =>
          (JSON.parse(fs.readFileSync(path.join(folder, combo, file), "utf8")) as { mean_tpot_ms: number })
            .mean_tpot_ms,
      ),
    );
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  return values.map((value) => value / mean);
}

export function detectionScenarios(fixtures: string): Scenario[] {
  const rows: Scenario[] = [];
  for (const repeats of [1, 3]) {
    for (const size of [0.03, 0.05, 0.1])
      rows.push({
        name: `step −${size * 100}%, 2% noise`,
        noise: 0.02,
        repeats,
        changeAt: 20,
        level: step(20, -size),
        better: "higher",
      });
    for (const noise of [0.01, 0.05])
      rows.push({
        name: `step −10%, ${noise * 100}% noise`,
        noise,
        repeats,
        changeAt: 20,
        level: step(20, -0.1),
        better: "higher",
      });
    rows.push({
      name: "flake −10% at night 4",
      noise: 0.02,
      repeats,
      changeAt: 3,
      level: flake(3, -0.1),
      flake: true,
      better: "higher",
    });
    rows.push({
      name: "flake −10% at night 15",
      noise: 0.02,
      repeats,
      changeAt: 14,
      level: flake(14, -0.1),
      flake: true,
      better: "higher",
    });
    rows.push({
      name: "drift −1%/night from night 20",
      noise: 0.02,
      repeats,
      changeAt: 19,
      level: drift(19, -0.01),
      better: "higher",
    });
    for (const noise of [0.01, 0.02, 0.05])
      rows.push({
        name: `steady, ${noise * 100}% noise`,
        noise,
        repeats,
        changeAt: null,
        level: () => 0,
        better: "higher",
      });
  }
  const real = realTpotNoise(fixtures);
  rows.push({
    name: "real vLLM TPOT noise, +10% TPOT at night 20",
    noise: 0,
    repeats: 1,
    changeAt: 19,
    level: step(19, 0.1),
    realNoise: real,
    better: "lower",
  });
  rows.push({
    name: "real vLLM TPOT noise, steady",
    noise: 0,
    repeats: 1,
    changeAt: null,
    level: () => 0,
    realNoise: real,
    better: "lower",
  });
  return rows;
}

const pct = (share: number | null) => (share === null ? "—" : `${(share * 100).toFixed(0)}%`);
const num = (value: number | null, digits = 1) => (value === null ? "—" : value.toFixed(digits));

/**
 * The mean delay of each rule over the series both declared: an average over the series each rule detected compares
 * different series (a rule that finds more of the hard ones finds them later, and its average rises for it).
 */
export function pairedDelay(
  old: readonly (number | null)[],
  now: readonly (number | null)[],
  changeAt: number | null,
): { old: number | null; new: number | null } {
  if (changeAt === null) return { old: null, new: null };
  let both = 0;
  let oldSum = 0;
  let newSum = 0;
  old.forEach((oldNight, seed) => {
    const newNight = now[seed];
    if (oldNight === null || newNight === null || newNight === undefined) return;
    both++;
    oldSum += oldNight - changeAt;
    newSum += newNight - changeAt;
  });
  return both === 0 ? { old: null, new: null } : { old: oldSum / both, new: newSum / both };
}

/**
 * Where the new rule is behind the old on a row, unrounded: fewer series detected (all, or those without an earlier
 * false alarm), more false alarms, a longer delay over the series both detect, or fewer culprits named exactly.
 */
export function behindOld(
  old: RuleFigures,
  now: RuleFigures,
  delay: { old: number | null; new: number | null },
): string[] {
  const behind: string[] = [];
  if (now.detected < old.detected) behind.push("detected");
  if ((now.detectedWithoutEarlierFalseAlarm ?? 0) < (old.detectedWithoutEarlierFalseAlarm ?? 0))
    behind.push("detected without an earlier false alarm");
  if (now.falseAlarmsPer100 > old.falseAlarmsPer100) behind.push("false alarms");
  if ((delay.new ?? 0) > (delay.old ?? 0)) behind.push("delay");
  if ((now.culpritExact ?? 0) < (old.culpritExact ?? 0)) behind.push("culprit named exactly");
  return behind;
}

/**
 * The markdown table of every scenario, old rule | new rule side by side, and the rows (if any) where the new rule is
 * behind the old on a column before rounding.
 */
export function detectionTable(fixtures: string, seeds = DETECTION_SEEDS): { table: string; behind: string[] } {
  const behind: string[] = [];
  const lines = [
    "| series (30 nights) | runs a night | detected old / new | detected, no false alarm before the change, old / new | false alarms per 100 steady nights old / new | delay (nights), series both detect, old / new | delay (nights), every series the new detects | culprit named exactly old / new |",
    "|---|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const scenario of detectionScenarios(fixtures)) {
    const old = measureRule(scenario, "old", seeds);
    const now = measureRule(scenario, "new", seeds);
    const detected = scenario.changeAt === null ? "—" : `${pct(old.detected)} / ${pct(now.detected)}`;
    const clean =
      old.detectedWithoutEarlierFalseAlarm === null
        ? "—"
        : `${pct(old.detectedWithoutEarlierFalseAlarm)} / ${pct(now.detectedWithoutEarlierFalseAlarm)}`;
    const delay = pairedDelay(old.declaredNights, now.declaredNights, scenario.changeAt);
    for (const column of behindOld(old, now, delay))
      behind.push(`${scenario.name}, ${scenario.repeats} run(s) a night: ${column}`);
    lines.push(
      `| ${scenario.name} | ${scenario.repeats} | ${detected} | ${clean} | ${num(old.falseAlarmsPer100, 2)} / ${num(now.falseAlarmsPer100, 2)} | ${num(delay.old)} / ${num(delay.new)} | ${num(now.delayNights)} | ${pct(old.culpritExact)} / ${pct(now.culpritExact)} |`,
    );
  }
  return { table: lines.join("\n"), behind };
}

/** The table as printed: with the line that says whether the new rule is at least as good as the old on every row. */
export function printedDetectionTable(fixtures: string, seeds = DETECTION_SEEDS): string {
  const { table, behind } = detectionTable(fixtures, seeds);
  const verdict =
    behind.length === 0
      ? "The new rule is at least as good as the old on every row and column (compared unrounded)."
      : `The new rule is behind the old on: ${behind.join("; ")}.`;
  return `${table}\n\n${verdict}`;
}

runWhenMain(__filename, "detection", async () => {
  const fixtures = path.join(__dirname, "..", "..", "tests", "fixtures");
  console.log(`Detection quality over ${DETECTION_SEEDS} seeds per series (old rule / new rule):\n`);
  console.log(printedDetectionTable(fixtures));
});
