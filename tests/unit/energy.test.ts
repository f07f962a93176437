/**
 * The energy figures of a load point (lib/analysis/energy.ts), against values worked out by hand.
 */
import { describe, expect, it } from "vitest";
import {
  energyFigures,
  hasPower,
  joulesPerOutputToken,
  meanPowerW,
  powerGpuCount,
  tokSPerKw,
  wattsPerGpu,
} from "@/lib/analysis/energy";

describe("joules per output token", () => {
  it("is the level's energy over its output tokens when both are known", () => {
    // 54,000 J for 12,000 tokens: 4.5 J/token, whatever the sampled mean power says.
    const point = { energy_j: 54_000, total_output_tokens: 12_000, power_w_mean: 1_790, output_throughput: 400 };
    expect(joulesPerOutputToken(point, 2)).toBe(4.5);
  });

  it("is the GPUs' mean power over output tok/s without an energy reading", () => {
    // 700 W ÷ 350 tok/s = 2 J/token (W = J/s).
    expect(joulesPerOutputToken({ power_w_mean: 700, output_throughput: 350 }, null)).toBe(2);
    // The energy alone is not enough without the token count: the power path is taken.
    expect(joulesPerOutputToken({ energy_j: 9_000, power_w_mean: 700, output_throughput: 350 })).toBe(2);
  });

  it("is null, never 0 or infinite, when an input is missing", () => {
    expect(joulesPerOutputToken({ output_throughput: 350, total_output_tokens: 1_000 })).toBeNull();
    expect(joulesPerOutputToken({ power_w_mean: 700 })).toBeNull();
    expect(joulesPerOutputToken({ power_w_mean: 700, output_throughput: 0 })).toBeNull();
    expect(joulesPerOutputToken({ energy_j: 0, total_output_tokens: 10 })).toBeNull();
  });
});

describe("watts per GPU", () => {
  it("divides the mean power by the GPUs it was measured over, before the run's GPU count", () => {
    // 54,000 J over 30 s is 1,800 W for the 2 measured GPUs: 900 W each (the run's 8 GPUs are not used).
    const point = { energy_j: 54_000, duration_s: 30, power_w_mean: 1_790, power_gpu_count: 2 };
    expect(meanPowerW(point)).toBe(1_800);
    expect(powerGpuCount(point, 8)).toBe(2);
    expect(wattsPerGpu(point, 8)).toBe(900);
  });

  it("takes the run's stated GPU count when the point states none, and is null when neither does", () => {
    expect(wattsPerGpu({ power_w_mean: 700 }, 2)).toBe(350);
    expect(wattsPerGpu({ power_w_mean: 700 }, null)).toBeNull();
    expect(powerGpuCount({}, null)).toBeNull();
    expect(wattsPerGpu({}, 2)).toBeNull();
  });
});

describe("output tok/s per kW", () => {
  it("is output tok/s over the GPUs' power in kW", () => {
    // 350 tok/s at 0.7 kW: 500 tok/s per kW (= 1000 / 2 J/token).
    expect(tokSPerKw({ power_w_mean: 700, output_throughput: 350 })).toBe(500);
    // From the energy: 12,000 tokens for 54 kJ = 222.2 tokens per kJ = tok/s per kW.
    expect(tokSPerKw({ energy_j: 54_000, total_output_tokens: 12_000 })).toBeCloseTo(222.2222, 4);
    expect(tokSPerKw({ output_throughput: 350 })).toBeNull();
  });
});

describe("a point's figures together", () => {
  it("gives all three, or nulls for a point without power", () => {
    expect(energyFigures({ power_w_mean: 700, output_throughput: 350, power_gpu_count: 2 }, 4)).toEqual({
      joules_per_output_token: 2,
      watts_per_gpu: 350,
      tok_s_per_kw: 500,
    });
    expect(energyFigures({ output_throughput: 350, total_output_tokens: 9_000 }, 4)).toEqual({
      joules_per_output_token: null,
      watts_per_gpu: null,
      tok_s_per_kw: null,
    });
    expect(hasPower({ power_w_mean: 700 })).toBe(true);
    expect(hasPower({ output_throughput: 350 })).toBe(false);
  });
});
