/**
 * Seeded uniform numbers: the same seed gives the same numbers on any machine, for whatever must come out the
 * same every time (the benchmark's prompts and arrival times, the repository's benchmark databases).
 */

export type Uniform = () => number;

/** mulberry32: uniform numbers in [0, 1) from a 32-bit seed. */
export function seededUniform(seed: number): Uniform {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
