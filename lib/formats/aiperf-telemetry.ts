/**
 * AIPerf's GPU telemetry (`telemetry_data` of profile_export_aiperf.json, `--gpu-telemetry`) → a point's power
 * figures (docs/formats/aiperf.md#gpu-telemetry). AIPerf writes, per telemetry endpoint and GPU,
 * `telemetry_data.endpoints.<endpoint>.gpus.<gpu_N>.metrics.<metric>` with `avg`, `min`, `max`, percentiles and
 * `count`, each with its `unit`:
 *
 * - power: `gpu_power_usage` (`nvidia_power_usage` in later NVIDIA exports, `amd_power` from amdsmi), in W;
 * - energy: `energy_consumption` (`nvidia_…`, `amd_…`), in MJ. It is a cumulative counter (since the driver
 *   loaded): AIPerf's first exports summarize its readings like a gauge (then the energy of the window is
 *   max − min), later ones write only the counter's increase over the profiling phase as `avg`.
 *
 * The GPUs' powers are summed, as servebench stores power (all measured GPUs together). A GPU's `max` is its own
 * peak: the peaks of several GPUs need not coincide, so with more than one GPU the largest total is unknown and
 * left out (listed in the import report).
 */
import { asRecord, type PointBuilder, toNumber } from "./common";

const POWER_METRICS = ["gpu_power_usage", "nvidia_power_usage", "amd_power"];
const ENERGY_METRICS = ["energy_consumption", "nvidia_energy_consumption", "amd_energy_consumption"];
/** Joules per unit of energy as AIPerf may state it ("MJ" is what it writes; case matters: mJ ≠ MJ). */
const JOULES: Record<string, number> = { MJ: 1e6, kJ: 1e3, J: 1, mJ: 1e-3 };

interface Gpu {
  path: string;
  metrics: Record<string, unknown>;
}

function gpusOf(telemetry: Record<string, unknown>): Gpu[] {
  const gpus: Gpu[] = [];
  for (const [endpoint, data] of Object.entries(asRecord(telemetry.endpoints) ?? {})) {
    for (const [name, gpu] of Object.entries(asRecord(asRecord(data)?.gpus) ?? {})) {
      const metrics = asRecord(asRecord(gpu)?.metrics);
      if (metrics) gpus.push({ path: `telemetry_data.endpoints.${endpoint}.gpus.${name}.metrics`, metrics });
    }
  }
  return gpus;
}

function metricOf(gpu: Gpu, names: readonly string[]): { name: string; stats: Record<string, unknown> } | null {
  for (const name of names) {
    const stats = asRecord(gpu.metrics[name]);
    if (stats) return { name, stats };
  }
  return null;
}

const number = (value: unknown): number | null => {
  const result = toNumber(value);
  return result !== null && Number.isFinite(result) && result >= 0 ? result : null;
};

/** Where a figure summed over GPUs came from: the one path, or the pattern and the count. */
function sourceOf(paths: string[], key: string): string {
  if (paths.length === 1) return `${paths[0]}.${key}`;
  const names = new Set(paths.map((path) => path.split(".").pop()));
  return `telemetry_data.endpoints.*.gpus.*.metrics.${[...names].join("|")}.${key} (sum over ${paths.length} GPUs)`;
}

/** Sets the point's power figures from `telemetry_data`, when it states any; reports what it cannot keep. */
export function setTelemetryFigures(builder: PointBuilder, telemetryData: unknown): void {
  const telemetry = asRecord(telemetryData);
  if (!telemetry) return;
  const gpus = gpusOf(telemetry);
  if (gpus.length === 0) return;

  let watts = 0;
  let samples: number | null = null;
  const powerPaths: string[] = [];
  let singleMax: { value: number; path: string } | null = null;
  const maxes: { path: string; value: number }[] = [];
  for (const gpu of gpus) {
    const power = metricOf(gpu, POWER_METRICS);
    if (!power) continue;
    const path = `${gpu.path}.${power.name}`;
    const avg = number(power.stats.avg);
    if (avg === null) continue;
    if (power.stats.unit !== "W") {
      builder.refused.push({
        source: `${path}.avg`,
        value: avg,
        reason: `power in ${JSON.stringify(power.stats.unit)}, where AIPerf writes W`,
      });
      continue;
    }
    watts += avg;
    powerPaths.push(path);
    const count = number(power.stats.count);
    // Each scrape reads every GPU of an endpoint: the fewest readings of one GPU is what every GPU had.
    if (count !== null) samples = samples === null ? count : Math.min(samples, count);
    const max = number(power.stats.max);
    if (max !== null) {
      maxes.push({ path: `${path}.max`, value: max });
      singleMax = { value: max, path };
    }
  }
  if (powerPaths.length > 0) {
    builder.set("power_w_mean", watts, sourceOf(powerPaths, "avg"));
    if (powerPaths.length === 1 && singleMax) builder.set("power_w_max", singleMax.value, `${singleMax.path}.max`);
    else
      for (const max of maxes)
        builder.refused.push({
          source: max.path,
          value: max.value,
          reason:
            "one GPU's largest reading: the GPUs' peaks need not coincide, so the largest total of the GPUs is not known",
        });
    if (samples !== null && samples > 0) builder.set("power_samples", samples, sourceOf(powerPaths, "count"));
  }

  // Energy: kept only when it covers the same GPUs as the power (or there is no power at all).
  let joules = 0;
  const energyPaths: string[] = [];
  let complete = true;
  for (const gpu of gpus) {
    const energy = metricOf(gpu, ENERGY_METRICS);
    const path = energy ? `${gpu.path}.${energy.name}` : null;
    const factor = energy && typeof energy.stats.unit === "string" ? JOULES[energy.stats.unit] : undefined;
    if (!energy || !path) {
      if (metricOf(gpu, POWER_METRICS)) complete = false;
      continue;
    }
    if (factor === undefined) {
      builder.refused.push({
        source: `${path}.avg`,
        value: number(energy.stats.avg) ?? 0,
        reason: `energy in ${JSON.stringify(energy.stats.unit)}, not a unit of energy AIPerf writes (MJ)`,
      });
      complete = false;
      continue;
    }
    const min = number(energy.stats.min);
    const max = number(energy.stats.max);
    // Readings of the cumulative counter (early exports): the energy of the window is their spread. Without
    // them, `avg` is the counter's increase over the profiling phase (AIPerf's counter delta).
    const increase = min !== null && max !== null ? max - min : number(energy.stats.avg);
    if (increase === null) {
      complete = false;
      continue;
    }
    joules += increase * factor;
    energyPaths.push(min !== null && max !== null ? `${path}.max − ${path}.min` : `${path}.avg`);
  }
  const sameGpus = powerPaths.length === 0 || energyPaths.length === powerPaths.length;
  if (energyPaths.length > 0 && complete && sameGpus && joules > 0) {
    const source =
      energyPaths.length === 1 ? `${energyPaths[0]} (MJ × 10⁶)` : `${energyPaths.join(" + ")} (MJ × 10⁶)`.slice(0, 300);
    builder.set("energy_j", joules, source);
  }

  const gpuCount = powerPaths.length > 0 ? powerPaths.length : energyPaths.length;
  if (builder.has("power_w_mean") || builder.has("energy_j")) {
    builder.set("power_gpu_count", gpuCount, "telemetry_data.endpoints.*.gpus (the GPUs summed)");
    builder.powerSource("aiperf-telemetry");
  }
}
