/**
 * servebench/v1 documents of a synthetic nightly series (tests/support/synthetic-series.ts): the night's
 * value is the single-stream throughput (concurrency 1); the concurrency-64 point has its own steady noise,
 * so only single stream steps.
 */
import { type NightlyOptions, nightlySeries, normal, seededRandom } from "./synthetic-series";

export function nightlyDocuments(
  options: NightlyOptions & {
    series: string;
    startDate?: string;
    /** The step moves the concurrency-64 figures too (output throughput, TTFT, TPOT), as an engine change does. */
    stepEveryFigure?: boolean;
  },
): Record<string, unknown>[] {
  const runs = nightlySeries(options);
  const random = seededRandom(options.seed + 1000);
  const start = new Date(options.startDate ?? "2026-11-01T02:00:00Z").getTime();
  return runs.map((run) => {
    const noise = 1 + 0.01 * normal(random);
    const stepped = options.stepEveryFigure && options.stepAt != null && run.night >= options.stepAt;
    const steady = stepped ? noise * (1 + (options.step ?? -0.1)) : noise;
    const commit = (run.night + 1).toString(16).padStart(8, "0").repeat(5);
    return {
      format: "servebench/v1",
      name: `nightly ${run.night + 1}${(options.repeats ?? 1) > 1 ? ` #${run.repeat + 1}` : ""}`,
      engine: "vllm",
      engine_version: run.night < 15 ? "0.11.0" : "0.12.0",
      model: "meta-llama/Llama-3.1-8B-Instruct",
      hardware: { gpu: "H100 80GB", gpu_count: 1 },
      command: "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-num-seqs 256",
      workload: { dataset: "random", input_len: 1024, output_len: 128 },
      series: options.series,
      git_commit: commit,
      git_branch: "main",
      ci_url: `https://ci.example.com/jobs/${run.night + 1}`,
      measured_at: new Date(start + run.night * 86_400_000 + run.repeat * 60_000).toISOString(),
      results: [
        { concurrency: 1, output_throughput: run.value, mean_tpot_ms: 1000 / run.value },
        { concurrency: 64, output_throughput: 2400 * steady, mean_tpot_ms: 25 / steady, mean_ttft_ms: 180 / steady },
      ],
    };
  });
}
