/**
 * Seeded randomness for the benchmark: the same seed sends the same prompts at the same times, on any
 * machine. Uniform numbers come from mulberry32 (lib/seeded-random.ts: a small 32-bit generator with good
 * statistical quality for this use); normal and gamma variates are built on it, so nothing depends on Math.random.
 */
import { seededUniform, type Uniform } from "@/lib/seeded-random";

/** A uniform number in (0, 1): never 0, so it can go through a logarithm. */
function open(uniform: Uniform): number {
  let u = uniform();
  while (u === 0) u = uniform();
  return u;
}

/** A standard normal variate (Box–Muller; one of the pair is used, which keeps the stream simple to reason about). */
export function normal(uniform: Uniform): number {
  return Math.sqrt(-2 * Math.log(open(uniform))) * Math.cos(2 * Math.PI * uniform());
}

/**
 * A gamma variate of the given shape and scale (mean shape × scale), by Marsaglia and Tsang's method; a
 * shape below 1 is drawn as gamma(shape + 1) · U^(1/shape), the usual boost.
 */
export function gamma(uniform: Uniform, shape: number, scale: number): number {
  if (!(shape > 0) || !(scale > 0)) throw new Error(`gamma needs a positive shape and scale, not ${shape}, ${scale}`);
  if (shape < 1) return gamma(uniform, shape + 1, scale) * open(uniform) ** (1 / shape);
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let x: number;
    let v: number;
    do {
      x = normal(uniform);
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const u = open(uniform);
    if (u < 1 - 0.0331 * x ** 4 || Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v * scale;
  }
}

/** An integer drawn uniformly from [low, high], both included. */
export function integerBetween(uniform: Uniform, low: number, high: number): number {
  return low + Math.floor(uniform() * (high - low + 1));
}

/** Fisher–Yates, in place. */
export function shuffle<T>(items: T[], uniform: Uniform): T[] {
  for (let i = items.length - 1; i > 0; i -= 1) {
    const j = Math.floor(uniform() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

/**
 * When each of `count` requests arrives, in ms after the level starts, with vLLM's definitions
 * (`get_request` in vllm/benchmarks/serve.py): the times between arrivals are drawn from a gamma
 * distribution of shape `burstiness` and mean 1 / rate, so burstiness 1 is a Poisson process (exponential
 * gaps), a lower value is burstier and a higher one more even (infinite: exactly 1 / rate apart). The
 * cumulative times are then scaled so the last arrival is at exactly count / rate: a level of N requests at
 * rate r spans N / r seconds whatever the seed, so throughput figures of different seeds compare. An
 * infinite rate sends every request at 0.
 */
export function arrivalTimesMs(count: number, rate: number, burstiness: number, seed: number): number[] {
  if (count <= 0) return [];
  if (rate === Number.POSITIVE_INFINITY) return new Array<number>(count).fill(0);
  if (!(rate > 0)) throw new Error(`the request rate must be positive, not ${rate}`);
  if (!(burstiness > 0)) throw new Error(`burstiness must be positive, not ${burstiness}`);
  const uniform = seededUniform(seed);
  const times: number[] = [];
  let elapsed = 0;
  for (let index = 0; index < count; index += 1) {
    elapsed += burstiness === Number.POSITIVE_INFINITY ? 1 / rate : gamma(uniform, burstiness, 1 / (rate * burstiness));
    times.push(elapsed);
  }
  const target = count / rate;
  const factor = elapsed > 0 ? target / elapsed : 1;
  return times.map((seconds) => seconds * factor * 1000);
}
