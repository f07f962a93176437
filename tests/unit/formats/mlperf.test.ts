import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { decodeAsText } from "@/lib/formats/decode";
import { readUploads } from "@/lib/formats/import";
import { planRuns } from "@/lib/formats/import-plan";
import { mlperfSummaryParser, resultsFolder } from "@/lib/formats/mlperf";
import { FORMAT_PARSERS } from "@/lib/formats/registry";
import { FormatError, type SourceFile } from "@/lib/formats/types";
import { FIXTURES_DIR, fixtureFiles } from "./fixtures";

const SERVER =
  "mlperf/v4.1/closed/NVIDIA/results/DGX-H100_H100-SXM-80GBx8_TRT/llama2-70b-99.9/Server/performance/run_1/mlperf_log_summary.txt";
const OFFLINE =
  "mlperf/v4.1/closed/NVIDIA/results/DGX-H100_H100-SXM-80GBx8_TRT/llama2-70b-99.9/Offline/performance/run_1/mlperf_log_summary.txt";
const GPTJ =
  "mlperf/v4.1/closed/Cisco/results/C240M7_L40Sx2_TRT/gptj-99/Server/performance/run_1/mlperf_log_summary.txt";
const INTERACTIVE =
  "mlperf/v5.1/closed/Dell/results/XE9680L_B200_SXM_180GBx8_TRT/llama3.1-405b/Interactive/performance/run_1/mlperf_log_summary.txt";
const INVALID =
  "mlperf/v5.1/open/Krai/compliance/xd670_h200_x8_vllm_092/llama3_1-70b-fp8_dyn/server/TEST06/performance/run_1/mlperf_log_summary.txt";

function text(fixture: string, name = fixture): SourceFile {
  const file = decodeAsText(name, fs.readFileSync(path.join(FIXTURES_DIR, fixture)));
  if (!file) throw new Error(`${fixture} is not text`);
  return file;
}

function edited(fixture: string, edit: (body: string) => string, name = "mlperf_log_summary.txt"): SourceFile {
  const body = edit(fs.readFileSync(path.join(FIXTURES_DIR, fixture), "utf8"));
  return { name, kind: "text", data: body, bytes: body.length };
}

function parseError(file: SourceFile): FormatError {
  try {
    mlperfSummaryParser.parse(file);
  } catch (error) {
    if (error instanceof FormatError) return error;
    throw error;
  }
  throw new Error("expected a FormatError");
}

describe("MLPerf LoadGen summary, Server (llama2-70b-99.9 on DGX-H100, v4.1, VALID)", () => {
  const [fragment] = mlperfSummaryParser.parse(text(SERVER));
  const point = fragment!.points[0]!;

  it("is detected and is one point, with no warning", () => {
    expect(mlperfSummaryParser.detect(text(SERVER))).toBe(true);
    expect(fragment?.format).toBe("mlperf-inference");
    expect(fragment?.points).toHaveLength(1);
    expect(fragment?.warnings).toEqual([]);
  });

  it("files it at the configured target_qps (75), not at the scheduled rate (75.10)", () => {
    expect(point.request_rate).toBe(75);
    expect(point.concurrency).toBeUndefined();
    expect(point.sources?.request_rate).toBe("Test Parameters Used.target_qps");
    expect(fragment?.notImported).toContainEqual(
      expect.objectContaining({ field: "Additional Stats.Scheduled samples per second", value: 75.1 }),
    );
  });

  it("reads the completed tokens and samples per second", () => {
    expect(point.output_throughput).toBe(21605.79);
    expect(point.sources?.output_throughput).toBe("MLPerf Results Summary.Completed tokens per second");
    expect(point.request_throughput).toBe(74.42);
  });

  it("converts TTFT, TPOT and latency from ns to ms", () => {
    // Mean First Token latency (ns) : 275926440 → 275.92644 ms
    expect(point.mean_ttft_ms).toBe(275.92644);
    expect(point.median_ttft_ms).toBe(272.954995);
    expect(point.p90_ttft_ms).toBe(372.923186);
    expect(point.p95_ttft_ms).toBe(401.131365);
    expect(point.p99_ttft_ms).toBe(461.278089);
    // Mean Time to Output Token (ns) : 154960329 → 154.960329 ms
    expect(point.mean_tpot_ms).toBe(154.960329);
    expect(point.median_tpot_ms).toBe(156.419276);
    expect(point.p99_tpot_ms).toBe(175.354317);
    // Mean latency (ns) : 44954547225 → 44954.547225 ms
    expect(point.mean_e2el_ms).toBe(44954.547225);
    expect(point.p99_e2el_ms).toBe(144812.821227);
    expect(point.percentiles?.ttft).toEqual({ p97: 421.577171, "p99.9": 540.00302 });
    expect(point.percentiles?.tpot).toEqual({ p97: 172.096621, "p99.9": 186.347793 });
    expect(point.percentiles?.e2el).toEqual({ p97: 114669.566327, "p99.9": 165959.128685 });
    expect(point.sources?.mean_tpot_ms).toBe("Additional Stats.Mean Time to Output Token (ns)");
    expect(point.mean_itl_ms).toBeUndefined();
  });

  it("keeps the verdict, each constraint and the early-stopping results in the metadata", () => {
    const metadata = fragment?.context.metadata ?? {};
    expect(metadata.mlperf_result).toBe("VALID");
    expect(metadata.mlperf_performance_constraints_satisfied).toBe("Yes");
    expect(metadata.mlperf_min_duration_satisfied).toBe("Yes");
    expect(metadata.mlperf_min_queries_satisfied).toBe("Yes");
    expect(metadata.mlperf_early_stopping_satisfied).toBe("Yes");
    expect(metadata.mlperf_ttft_early_stopping_result).toBe("Run successful.");
    expect(metadata.mlperf_tpot_early_stopping_result).toBe("Run successful.");
    expect(metadata.mlperf_sut_name).toBe("llama2-70b-Server-SUT-LoadGen");
    expect(metadata.mlperf_scenario).toBe("Server");
  });

  it("keeps the test parameters, the RNG seeds (beyond 2^53) as their digits", () => {
    const metadata = fragment?.context.metadata ?? {};
    expect(metadata.loadgen_ttft_latency_ns).toBe(2000000000);
    expect(metadata.loadgen_tpot_latency_ns).toBe(200000000);
    expect(metadata.loadgen_min_duration_ms).toBe(2400000);
    expect(metadata.loadgen_performance_sample_count).toBe(24576);
    expect(metadata.loadgen_qsl_rng_seed).toBe("3066443479025735752");
    expect(metadata.loadgen_schedule_rng_seed).toBe("14962580496156340209");
    expect(metadata.loadgen_target_qps).toBeUndefined();
  });

  it("takes the system, benchmark and scenario from the folder name, and says so", () => {
    expect(fragment?.context.model).toBe("llama2-70b");
    expect(fragment?.context.name).toBe("MLPerf llama2-70b-99.9 Server on DGX-H100_H100-SXM-80GBx8_TRT");
    expect(fragment?.context.metadata?.mlperf_benchmark).toBe("llama2-70b-99.9");
    expect(fragment?.context.metadata?.mlperf_system).toBe("DGX-H100_H100-SXM-80GBx8_TRT");
    expect(fragment?.context.metadata?.mlperf_submitter).toBe("NVIDIA");
    expect(fragment?.context.metadata?.mlperf_division).toBe("closed");
    expect(point.sources?.model).toMatch(/^from the folder name/);
  });

  it("reports the extremes as not imported, and the repeated tokens per second not at all", () => {
    const fields = (fragment?.notImported ?? []).map((entry) => entry.field);
    expect(fields).toContain("Additional Stats.Min First Token latency (ns)");
    expect(fields).toContain("Additional Stats.Max Time to Output Token (ns)");
    expect(fields).not.toContain("Additional Stats.Completed tokens per second");
  });
});

describe("MLPerf LoadGen summary, Offline (llama2-70b-99.9 on DGX-H100, v4.1)", () => {
  const [fragment] = mlperfSummaryParser.parse(text(OFFLINE));
  const point = fragment!.points[0]!;

  it("files it at the request rate inf: every sample issued at once", () => {
    expect(point.request_rate).toBe("inf");
    expect(point.sources?.request_rate).toMatch(/Offline/);
    // Offline's target_qps only sizes the one query; it is kept in the metadata, not as the level.
    expect(fragment?.context.metadata?.mlperf_target_qps).toBe(76);
    expect(fragment?.context.metadata?.loadgen_samples_per_query).toBe(200640);
  });

  it("reads tokens and samples per second", () => {
    expect(point.output_throughput).toBe(24524.9);
    expect(point.sources?.output_throughput).toBe("MLPerf Results Summary.Tokens per second");
    expect(point.request_throughput).toBe(84.4792);
  });

  it("imports no latency: Offline latencies are completion times since the start", () => {
    expect(point.mean_e2el_ms).toBeUndefined();
    expect(point.mean_ttft_ms).toBeUndefined();
    expect(point.percentiles).toBeUndefined();
    const mean = fragment?.notImported?.find((entry) => entry.field === "Additional Stats.Mean latency (ns)");
    expect(mean?.value).toBe(1318915483709);
    expect(mean?.reason).toMatch(/not a request's end-to-end latency/);
    expect(fragment?.context.metadata?.mlperf_performance_constraints_satisfied).toBeUndefined();
  });
});

describe("MLPerf LoadGen summary, INVALID (Krai TEST06, llama3.1-70b fp8, v5.1)", () => {
  const [fragment] = mlperfSummaryParser.parse(text(INVALID));
  const point = fragment!.points[0]!;

  it("keeps the figures and warns that the run is INVALID, naming the constraints not met", () => {
    expect(point.request_rate).toBe(93);
    expect(point.output_throughput).toBe(2717.49);
    expect(point.mean_ttft_ms).toBe(732.760201);
    expect(point.p99_ttft_ms).toBe(6031.18106);
    expect(point.mean_tpot_ms).toBe(23.066027);
    const warning = fragment?.warnings.find((entry) => /INVALID/.test(entry));
    expect(warning).toMatch(/not satisfied: performance constraints, early stopping/);
    expect(warning).toBe(
      "MLPerf LoadGen judged this run INVALID (not satisfied: performance constraints, early stopping); its recommendation: TTFT constrain not met: Reduce target QPS to improve latency. Its figures are kept as measured, but they are no valid MLPerf result.",
    );
    expect(fragment?.warnings).toContain("LoadGen: 1 warning encountered. See detailed log.");
  });

  it("keeps the verdict and the failed constraints in the metadata", () => {
    const metadata = fragment?.context.metadata ?? {};
    expect(metadata.mlperf_result).toBe("INVALID");
    expect(metadata.mlperf_performance_constraints_satisfied).toBe("NO");
    expect(metadata.mlperf_early_stopping_satisfied).toBe("NO");
    expect(metadata.mlperf_min_duration_satisfied).toBe("Yes");
    expect(metadata.mlperf_recommendations).toBe("TTFT constrain not met: Reduce target QPS to improve latency.");
    expect(metadata.mlperf_ttft_early_stopping_result).toBe("(nothing stated)");
    expect(metadata.mlperf_tpot_early_stopping_result).toBe(
      "Run unsuccessful. Processed 100 queries. Would need to run at least 359 more queries, with the run being successful if every additional query were under latency.",
    );
  });

  it("takes nothing from a path that is not the results layout", () => {
    expect(resultsFolder(INVALID)).toBeUndefined();
    expect(fragment?.context.model).toBeUndefined();
    expect(fragment?.context.name).toBeUndefined();
    expect(point.sources?.model).toBeUndefined();
  });
});

describe("MLPerf LoadGen summary, Interactive folder (llama3.1-405b on Dell XE9680L, v5.1)", () => {
  const [fragment] = mlperfSummaryParser.parse(text(INTERACTIVE));
  const point = fragment!.points[0]!;

  it("is a Server run whose folder says Interactive; both are kept", () => {
    expect(fragment?.context.metadata?.mlperf_scenario).toBe("Server");
    expect(fragment?.context.metadata?.mlperf_scenario_folder).toBe("Interactive");
    expect(fragment?.context.model).toBe("llama3.1-405b");
    expect(point.request_rate).toBe(1.15);
    expect(point.output_throughput).toBe(751.37);
    // 4500000000 ns TTFT and 80000000 ns TPOT limits: the interactive constraints.
    expect(fragment?.context.metadata?.loadgen_ttft_latency_ns).toBe(4500000000);
    expect(fragment?.context.metadata?.loadgen_tpot_latency_ns).toBe(80000000);
    expect(point.mean_tpot_ms).toBe(61.696524);
    expect(point.percentiles?.ttft?.["p99.9"]).toBe(3219.589755);
  });

  it("keeps LoadGen's warning about sample_concatenate_permutation as a note", () => {
    expect(fragment?.context.metadata?.loadgen_notes).toMatch(/^WARNING: sample_concatenate_permutation/);
  });
});

describe("MLPerf LoadGen summary, GPT-J (tokens per second only inferred)", () => {
  const [fragment] = mlperfSummaryParser.parse(text(GPTJ));
  const point = fragment!.points[0]!;

  it("keeps the sample rate and latencies, not the inferred tokens per second", () => {
    expect(point.output_throughput).toBeUndefined();
    expect(point.request_rate).toBe(25.2);
    expect(point.request_throughput).toBe(25.13);
    expect(point.mean_e2el_ms).toBe(9623.941247);
    expect(point.mean_ttft_ms).toBeUndefined();
    const inferred = fragment?.notImported?.find(
      (entry) => entry.field === "MLPerf Results Summary.Completed tokens per second (inferred)",
    );
    expect(inferred?.value).toBe(1734.03);
    expect(fragment?.warnings.join(" ")).toMatch(/inferred/);
    expect(fragment?.context.metadata?.mlperf_early_stopping_result).toBe("Run successful.");
  });
});

describe("MLPerf LoadGen summary: refusals and detection", () => {
  it("refuses other scenarios, naming the field", () => {
    const error = parseError(edited(SERVER, (body) => body.replace("Scenario : Server", "Scenario : SingleStream")));
    expect(error.path).toBe("Scenario");
    expect(error.message).toMatch(/SingleStream/);
  });

  it("refuses a summary without tokens (not an LLM benchmark)", () => {
    const error = parseError(edited(OFFLINE, (body) => body.replace(/^Tokens per second: .*\n/m, "")));
    expect(error.path).toBe("Tokens per second");
  });

  it("refuses a Server run without a target_qps", () => {
    const error = parseError(edited(SERVER, (body) => body.replace(/^target_qps : 75\n/m, "")));
    expect(error.path).toBe("Test Parameters Used.target_qps");
  });

  it("reads the folder layout of the results repositories only", () => {
    expect(
      resultsFolder("closed/AMD/results/8xMI300X/llama2-70b-99/Server/performance/run_1/mlperf_log_summary.txt"),
    ).toEqual({
      division: "closed",
      submitter: "AMD",
      system: "8xMI300X",
      benchmark: "llama2-70b-99",
      scenario: "Server",
      run: 1,
    });
    expect(resultsFolder("results/sys/bench/Offline/performance/run_1/mlperf_log_summary.txt")?.system).toBe("sys");
    expect(resultsFolder("mlperf_log_summary.txt")).toBeUndefined();
    expect(resultsFolder("logs/Server/mlperf_log_summary.txt")).toBeUndefined();
  });

  it("claims no other tool's fixture", () => {
    const others = fs
      .readdirSync(FIXTURES_DIR)
      .filter((folder) => folder !== "mlperf" && fs.statSync(path.join(FIXTURES_DIR, folder)).isDirectory())
      .flatMap((folder) => fixtureFiles(folder));
    for (const file of others) {
      const source = decodeAsText(file, fs.readFileSync(path.join(FIXTURES_DIR, file)));
      if (source) expect(mlperfSummaryParser.detect(source), file).toBe(false);
    }
  });

  it("becomes a run through the upload pipeline, with the INVALID warning stored", () => {
    const parsed = readUploads(
      [{ name: INVALID, bytes: fs.readFileSync(path.join(FIXTURES_DIR, INVALID)) }],
      FORMAT_PARSERS,
    );
    const plan = planRuns(parsed, { split: false });
    const document = plan.runs[0]?.document as Record<string, unknown>;
    expect(document.source_format).toBe("mlperf-inference");
    expect(JSON.stringify(document.warnings)).toMatch(/INVALID/);
    expect((document.metadata as Record<string, unknown>).mlperf_result).toBe("INVALID");
  });
});
