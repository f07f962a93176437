/**
 * AIPerf's GPU telemetry (`telemetry_data`) → a point's power figures, on AIPerf's own documented example
 * (tests/fixtures/aiperf-telemetry/SOURCE.txt) and the counter form its later versions write.
 */
import { describe, expect, it } from "vitest";
import { aiperfProfileParser } from "@/lib/formats/aiperf";
import { setTelemetryFigures } from "@/lib/formats/aiperf-telemetry";
import { PointBuilder } from "@/lib/formats/common";
import { readFixtureJson } from "./fixtures";

const EXAMPLE = "aiperf-telemetry/docs-gpu-telemetry-h100/telemetry_data.json";
const V0110 = "aiperf/v0.11.0-sweep-concurrency_64/profile_export_aiperf.json";

type Raw = Record<string, unknown>;

function telemetry(): Raw {
  return (readFixtureJson(EXAMPLE) as { telemetry_data: Raw }).telemetry_data;
}

function pointOf(telemetryData: unknown) {
  const builder = new PointBuilder("profile_export_aiperf.json");
  builder.concurrency(4, "input_config.phases.1.concurrency");
  setTelemetryFigures(builder, telemetryData);
  return { point: builder.build(), refused: builder.refused };
}

describe("AIPerf GPU telemetry", () => {
  it("reads one GPU's power (W) and its energy counter's spread (MJ) as the documented example states them", () => {
    const { point, refused } = pointOf(telemetry());
    const gpu = "telemetry_data.endpoints.localhost:9401.gpus.gpu_0.metrics";
    expect(point.power_w_mean).toBe(348.6908823529412);
    expect(point.power_w_max).toBe(386.022);
    expect(point.power_samples).toBe(153);
    // The counter read 0.229901671 MJ at its lowest and 0.246497393 MJ at its highest: 16,595.722 J in the window.
    expect(point.energy_j).toBeCloseTo(16_595.722, 3);
    expect(point.power_gpu_count).toBe(1);
    expect(point.power_source).toBe("aiperf-telemetry");
    expect(point.sources?.power_w_mean).toBe(`${gpu}.gpu_power_usage.avg`);
    expect(point.sources?.energy_j).toBe(`${gpu}.energy_consumption.max − ${gpu}.energy_consumption.min (MJ × 10⁶)`);
    expect(refused).toEqual([]);
  });

  it("sums the GPUs' power, and keeps no largest total when each GPU only states its own peak", () => {
    const data = telemetry();
    const gpus = (data.endpoints as Raw)["localhost:9401"] as { gpus: Raw };
    // A second GPU at a different endpoint: AIPerf's shape for a second DCGM exporter.
    const second = structuredClone(gpus.gpus.gpu_0) as { metrics: Record<string, Raw> };
    second.metrics.gpu_power_usage!.avg = 300;
    second.metrics.energy_consumption = { avg: 0.0155, unit: "MJ" };
    (data.endpoints as Raw)["node2:9400"] = { gpus: { gpu_0: second } };
    const { point, refused } = pointOf(data);
    expect(point.power_w_mean).toBeCloseTo(648.6908823529412, 9);
    expect(point.power_w_max).toBeUndefined();
    expect(point.power_gpu_count).toBe(2);
    // 16,595.722 J from the first GPU's counter readings + 15,500 J from the second's counter increase (`avg` only).
    expect(point.energy_j).toBeCloseTo(32_095.722, 3);
    expect(refused.map((entry) => entry.source)).toEqual([
      "telemetry_data.endpoints.localhost:9401.gpus.gpu_0.metrics.gpu_power_usage.max",
      "telemetry_data.endpoints.node2:9400.gpus.gpu_0.metrics.gpu_power_usage.max",
    ]);
  });

  it("stores nothing when no GPU was reached, and refuses power in a unit it does not know", () => {
    expect(pointOf({ summary: {}, endpoints: {}, error_summary: [] }).point.power_w_mean).toBeUndefined();
    const data = telemetry();
    const metrics = (((data.endpoints as Raw)["localhost:9401"] as { gpus: Raw }).gpus.gpu_0 as { metrics: Raw })
      .metrics as Record<string, Raw>;
    metrics.gpu_power_usage!.unit = "mW";
    delete metrics.energy_consumption;
    const { point, refused } = pointOf(data);
    expect(point.power_w_mean).toBeUndefined();
    expect(point.power_source).toBeUndefined();
    expect(refused[0]?.reason).toMatch(/power in "mW"/);
  });

  it("is read from a profile export beside the inference figures", () => {
    const profile = structuredClone(readFixtureJson(V0110)) as Raw;
    profile.telemetry_data = telemetry();
    const [fragment] = aiperfProfileParser.parse({
      name: "profile_export_aiperf.json",
      kind: "json",
      data: profile,
      bytes: 1,
    });
    const point = fragment!.points[0]!;
    expect(point.concurrency).toBe(64);
    expect(point.output_throughput).toBeGreaterThan(0);
    expect(point.power_w_mean).toBe(348.6908823529412);
    expect(point.power_source).toBe("aiperf-telemetry");
  });
});
