/**
 * Reading the GPUs' power (lib/bench/power.ts): what DCGM's metrics, nvidia-smi and amd-smi answer, folded into a
 * level's figures; and the `--power` options.
 */
import { describe, expect, it } from "vitest";
import { parseBenchArgs } from "@/lib/bench/options";
import { LevelPower, parseAmdSmi, parseDcgm, parseNvidiaSmi } from "@/lib/bench/power";
import { benchArgs } from "@/lib/bench/reproduce";

const DCGM = { source: "dcgm-exporter", power_name: "DCGM_FI_DEV_POWER_USAGE", energy_name: "E" } as const;

describe("parsing", () => {
  it("sums DCGM's power gauge over GPUs and turns the energy counters' mJ into J", () => {
    const text = [
      "# TYPE DCGM_FI_DEV_POWER_USAGE gauge",
      'DCGM_FI_DEV_POWER_USAGE{gpu="0",UUID="GPU-a"} 312.5',
      'DCGM_FI_DEV_POWER_USAGE{gpu="1",UUID="GPU-b"} 287.25',
      'DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu="0",UUID="GPU-a"} 1500000',
      'DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu="1",UUID="GPU-b"} 2500000',
    ].join("\n");
    expect(parseDcgm(text)).toEqual({
      ok: true,
      reading: { watts: 599.75, gpus: 2, energyJ: 4000, energyGpus: 2 },
    });
    expect(parseDcgm("vllm:num_requests_running 3\n")).toEqual({
      ok: false,
      error: "no DCGM_FI_DEV_POWER_USAGE in the metrics",
    });
  });

  it("reads nvidia-smi's CSV, one GPU a line, skipping a GPU that cannot tell its power", () => {
    expect(parseNvidiaSmi("351.20\n348.80\n[N/A]\n")).toEqual({ ok: true, reading: { watts: 700, gpus: 2 } });
    expect(parseNvidiaSmi("")).toEqual({ ok: false, error: "nvidia-smi gave no power reading (nothing)" });
  });

  it("reads amd-smi's JSON as a list (ROCm 6) or under gpu_data (ROCm 7), values bare or with a unit", () => {
    const list = JSON.stringify([
      { gpu: 0, power: { socket_power: { value: 542, unit: "W" } } },
      { gpu: 1, power: { average_socket_power: 141 } },
      { gpu: 2, power: { socket_power: "N/A" } },
    ]);
    expect(parseAmdSmi(list)).toEqual({ ok: true, reading: { watts: 683, gpus: 2 } });
    const wrapped = JSON.stringify({ gpu_data: [{ gpu: 0, power: { socket_power: { value: 214, unit: "W" } } }] });
    expect(parseAmdSmi(wrapped)).toEqual({ ok: true, reading: { watts: 214, gpus: 1 } });
    expect(parseAmdSmi("not json").ok).toBe(false);
  });
});

describe("a level's power", () => {
  it("averages the summed power over the level's readings and takes the energy counters' increase", () => {
    const level = new LevelPower(DCGM);
    level.baseline({ watts: 100, gpus: 2, energyJ: 10_000, energyGpus: 2 });
    level.sample({ watts: 600, gpus: 2, energyJ: 10_600, energyGpus: 2 });
    level.sample({ watts: 700, gpus: 2, energyJ: 11_300, energyGpus: 2 });
    level.sample({ watts: 800, gpus: 2, energyJ: 12_100, energyGpus: 2 });
    level.final({ watts: 120, gpus: 2, energyJ: 12_250, energyGpus: 2 });
    const { figures, notes } = level.result();
    // (600 + 700 + 800) / 3 = 700 W; the baseline and final readings are outside the level.
    expect(figures).toEqual({
      power_w_mean: 700,
      power_w_max: 800,
      power_samples: 3,
      energy_j: 2_250,
      power_gpu_count: 2,
      power_source: "dcgm-exporter",
    });
    expect(notes).toEqual([]);
  });

  it("leaves the energy out when the counter went down or did not move, and has no figures without readings", () => {
    const reset = new LevelPower(DCGM);
    reset.baseline({ watts: 1, gpus: 1, energyJ: 500, energyGpus: 1 });
    reset.final({ watts: 1, gpus: 1, energyJ: 20, energyGpus: 1 });
    expect(reset.result().figures).toEqual({});
    expect(reset.result().notes[0]).toMatch(/went down/);
    const stale = new LevelPower(DCGM);
    stale.baseline({ watts: 1, gpus: 1, energyJ: 500, energyGpus: 1 });
    stale.sample({ watts: 300, gpus: 1 });
    stale.final({ watts: 1, gpus: 1, energyJ: 500, energyGpus: 1 });
    expect(stale.result().figures.energy_j).toBeUndefined();
    expect(stale.result().figures.power_w_mean).toBe(300);
    expect(stale.result().notes[0]).toMatch(/did not move/);
  });
});

describe("options", () => {
  const base = ["--base-url", "http://127.0.0.1:8000/v1"];
  it("defaults to auto every 500 ms, and --power-metrics names a DCGM exporter", () => {
    expect(parseBenchArgs(base).power).toEqual({ mode: "auto", intervalMs: 500 });
    const options = parseBenchArgs([
      ...base,
      "--power-metrics",
      "http://gpu-box:9400/metrics",
      "--power-interval",
      "250",
    ]);
    expect(options.power).toEqual({
      mode: "dcgm",
      metricsUrl: new URL("http://gpu-box:9400/metrics"),
      intervalMs: 250,
    });
    expect(benchArgs(options, "m")).toEqual(
      expect.arrayContaining(["--power-metrics", "http://gpu-box:9400/metrics", "--power-interval", "250"]),
    );
    expect(benchArgs(parseBenchArgs([...base, "--power", "off"]), "m")).toEqual(
      expect.arrayContaining(["--power", "off"]),
    );
  });

  it("refuses an unknown mode, a non-URL and a DCGM URL with a vendor tool", () => {
    expect(() => parseBenchArgs([...base, "--power", "ipmi"])).toThrow(
      '--power is auto, dcgm, nvidia-smi, amd-smi, off, not "ipmi"',
    );
    expect(() => parseBenchArgs([...base, "--power-metrics", "gpu-box"])).toThrow(
      '--power-metrics is not a URL: "gpu-box"',
    );
    expect(() =>
      parseBenchArgs([...base, "--power", "nvidia-smi", "--power-metrics", "http://gpu-box:9400/metrics"]),
    ).toThrow("--power-metrics names a DCGM exporter and excludes --power nvidia-smi");
  });
});
