/**
 * Energy beside speed, per load point (docs/metrics.md#energy): joules per output token, watts per GPU and output
 * tok/s per kW. A point's power figures are of every GPU that was measured, summed (`power_w_mean`, `energy_j`,
 * `power_gpu_count` of them). Every function returns null when an input it needs is missing: never 0, and never a
 * GPU count guessed from flags.
 */
import type { ResultPoint } from "@/lib/document/schema";

type PowerPoint = Pick<
  ResultPoint,
  "power_w_mean" | "energy_j" | "power_gpu_count" | "total_output_tokens" | "output_throughput" | "duration_s"
>;

const positive = (value: number | null | undefined): value is number =>
  typeof value === "number" && Number.isFinite(value) && value > 0;

/**
 * The GPUs a point's power is divided among: the count its power was measured over when it states one (the
 * summed figures cover exactly those), else the run's stated GPU count, else null.
 */
export function powerGpuCount(point: Pick<ResultPoint, "power_gpu_count">, gpuCount: number | null): number | null {
  if (positive(point.power_gpu_count)) return point.power_gpu_count;
  return positive(gpuCount) ? gpuCount : null;
}

/**
 * Mean power of the measured GPUs together over the point, in W. The energy counter's reading over the point's
 * duration when both are known (a counter integrates every moment; samples can miss short peaks), else the
 * sampled mean.
 */
export function meanPowerW(point: PowerPoint): number | null {
  if (positive(point.energy_j) && positive(point.duration_s)) return point.energy_j / point.duration_s;
  return positive(point.power_w_mean) ? point.power_w_mean : null;
}

/**
 * Joules per output token: the level's energy ÷ its output tokens when both are known, else the mean power of all
 * the measured GPUs ÷ output tok/s (W ÷ tok/s = J/token). `_gpuCount` is taken for a uniform signature: the
 * figure needs no GPU count, since power is already the GPUs' total.
 */
export function joulesPerOutputToken(point: PowerPoint, _gpuCount: number | null = null): number | null {
  if (positive(point.energy_j) && positive(point.total_output_tokens))
    return point.energy_j / point.total_output_tokens;
  if (positive(point.power_w_mean) && positive(point.output_throughput))
    return point.power_w_mean / point.output_throughput;
  return null;
}

/** Mean power per GPU, in W: the measured GPUs' mean power ÷ their count (see powerGpuCount). */
export function wattsPerGpu(point: PowerPoint, gpuCount: number | null): number | null {
  const power = meanPowerW(point);
  const gpus = powerGpuCount(point, gpuCount);
  return power !== null && gpus !== null ? power / gpus : null;
}

/**
 * Output tok/s per kW of GPU power: output tok/s ÷ (mean power / 1000). The reciprocal of J/token scaled, so
 * it follows the same inputs: 1000 ÷ J/token when the energy counter is known, else tok/s ÷ kW.
 */
export function tokSPerKw(point: PowerPoint, gpuCount: number | null = null): number | null {
  const joules = joulesPerOutputToken(point, gpuCount);
  return joules !== null && joules > 0 ? 1000 / joules : null;
}

export interface EnergyFigures {
  joules_per_output_token: number | null;
  watts_per_gpu: number | null;
  tok_s_per_kw: number | null;
}

/** The three figures of one point, for a table row. */
export function energyFigures(point: PowerPoint, gpuCount: number | null): EnergyFigures {
  return {
    joules_per_output_token: joulesPerOutputToken(point, gpuCount),
    watts_per_gpu: wattsPerGpu(point, gpuCount),
    tok_s_per_kw: tokSPerKw(point, gpuCount),
  };
}

/** True when a point states any power figure, so a page shows the energy columns only for runs that have them. */
export function hasPower(point: PowerPoint): boolean {
  return positive(point.power_w_mean) || positive(point.energy_j);
}
