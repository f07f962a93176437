/**
 * A synthetic nightly series for the detection tests and figures: a steady value with Gaussian noise, a
 * one-night flake and a lasting step. Seeded, so every run of the tests sees the same numbers.
 */

/** mulberry32: a small, seeded pseudo-random generator with a uniform output in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Box–Muller: a standard normal draw from two uniform ones. */
export function normal(random: () => number): number {
  const u = 1 - random();
  const v = random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

export interface NightlyOptions {
  seed: number;
  nights?: number;
  base?: number;
  /** Relative noise of one run (0.02 = 2%). */
  noise?: number;
  /** The night of the flake and its relative size (−0.10 = 10% lower that night only). */
  flakeAt?: number | null;
  flake?: number;
  /** The night the step starts and its relative size, lasting to the end. */
  stepAt?: number | null;
  step?: number;
  /** Runs per night, at the same commit (repeats). */
  repeats?: number;
}

export interface NightlyRun {
  night: number;
  repeat: number;
  value: number;
}

export function nightlySeries(options: NightlyOptions): NightlyRun[] {
  const random = seededRandom(options.seed);
  const nights = options.nights ?? 30;
  const base = options.base ?? 100;
  const noise = options.noise ?? 0.02;
  const repeats = options.repeats ?? 1;
  const runs: NightlyRun[] = [];
  for (let night = 0; night < nights; night++) {
    let level = base;
    if (options.stepAt != null && night >= options.stepAt) level *= 1 + (options.step ?? -0.1);
    if (options.flakeAt != null && night === options.flakeAt) level *= 1 + (options.flake ?? -0.1);
    for (let repeat = 0; repeat < repeats; repeat++) {
      runs.push({ night, repeat, value: level * (1 + noise * normal(random)) });
    }
  }
  return runs;
}
