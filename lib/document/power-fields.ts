/**
 * The power fields of a servebench/v1 result point (docs/run-format.md#power), apart from lib/document/schema.ts,
 * which re-exports them.
 */
import { z } from "zod";

/** As the point's other figures: non-negative and below 10¹², counts whole and within a 32-bit integer. */
const nonNegative = () => z.number().nonnegative().max(1e12);
const count = () => z.number().int().nonnegative().max(2_147_483_647);

/**
 * Electrical power of the GPUs during a load point (docs/metrics.md#energy). Power and energy are of every GPU that
 * was measured, summed (`power_gpu_count` of them): the figures a load point costs in energy, not one GPU's share.
 * A figure that was not measured is absent, never 0.
 */
export const POWER_FIELDS = {
  power_w_mean:
    "Mean electrical power of the measured GPUs together during the load point (their board power summed), in W.",
  power_w_max: "Largest summed power of the measured GPUs at one reading during the load point, in W.",
  energy_j:
    "Energy the measured GPUs used together during the load point, in J, from their energy counters (the increase over the load point); absent when only power was sampled.",
  power_gpu_count: "Number of GPUs whose power is summed in power_w_mean, power_w_max and energy_j.",
  power_samples: "Power readings taken during the load point (one reading covers every measured GPU).",
} as const;
export type PowerField = keyof typeof POWER_FIELDS;
export const POWER_KEYS = Object.keys(POWER_FIELDS) as PowerField[];
const POWER_COUNT_FIELDS = new Set<PowerField>(["power_gpu_count", "power_samples"]);
/** Where a point's power was read: a DCGM exporter's metrics, a vendor tool, AIPerf's telemetry, or another file. */
export const POWER_SOURCES = ["dcgm-exporter", "nvidia-smi", "amd-smi", "aiperf-telemetry", "file"] as const;
export type PowerSource = (typeof POWER_SOURCES)[number];

export const powerShape = Object.fromEntries(
  POWER_KEYS.map((key) => [
    key,
    (POWER_COUNT_FIELDS.has(key)
      ? key === "power_gpu_count"
        ? z.number().int().min(1).max(100_000)
        : count()
      : nonNegative()
    )
      .optional()
      .describe(POWER_FIELDS[key]),
  ]),
) as Record<PowerField, z.ZodOptional<z.ZodNumber>>;

export const powerSourceSchema = z
  .enum(POWER_SOURCES, { error: `must be one of ${POWER_SOURCES.join(", ")}` })
  .optional()
  .describe(
    'Where the point\'s power figures were read: "dcgm-exporter" (DCGM_FI_DEV_* metrics), "nvidia-smi", "amd-smi", "aiperf-telemetry" (AIPerf\'s GPU telemetry) or "file" (another file that states them).',
  );
