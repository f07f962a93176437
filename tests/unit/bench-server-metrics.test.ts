/**
 * Reading a Prometheus exposition and folding a level's scrapes into the server figures: gauges averaged over
 * the scrapes of the level, counters and histograms differenced across it, every figure absent when its
 * metric is.
 */
import { describe, expect, it } from "vitest";
import { hasEngineMetrics, readExposition } from "@/lib/bench/prometheus";
import { LevelServerMetrics, SERVER_METRIC_NAMES } from "@/lib/bench/server-metrics";

const EXPOSITION = `# HELP vllm:num_requests_running Number of requests in model execution batches.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0",model_name="m"} 3.0
vllm:num_requests_running{engine="1",model_name="m"} 5.0
vllm:num_requests_waiting{engine="0",model_name="weird } label, \\"quoted\\""} 2
vllm:kv_cache_usage_perc{engine="0",model_name="m"} 0.5
vllm:kv_cache_usage_perc{engine="1",model_name="m"} 0.7
vllm:num_preemptions_total{engine="0",model_name="m"} 12 1700000000000
vllm:time_to_first_token_seconds_bucket{le="+Inf",model_name="m"} 10
vllm:time_to_first_token_seconds_sum{model_name="m"} 1.5
vllm:time_to_first_token_seconds_count{model_name="m"} 10
vllm:spec_decode_num_drafts_total NaN
process_cpu_seconds_total 12.5
`;

describe("readExposition", () => {
  it("folds the series of each wanted name into their sum, count and largest value", () => {
    const reading = readExposition(EXPOSITION, SERVER_METRIC_NAMES);
    expect(reading.get("vllm:num_requests_running")).toEqual({ sum: 8, series: 2, max: 5 });
    // A label value with a brace, a comma and escaped quotes does not confuse the value.
    expect(reading.get("vllm:num_requests_waiting")).toEqual({ sum: 2, series: 1, max: 2 });
    expect(reading.get("vllm:kv_cache_usage_perc")).toEqual({ sum: 1.2, series: 2, max: 0.7 });
    // A timestamp after the value is not the value.
    expect(reading.get("vllm:num_preemptions_total")?.sum).toBe(12);
    expect(reading.get("vllm:time_to_first_token_seconds_sum")?.sum).toBe(1.5);
    // NaN is no value; names nobody asked for are not kept.
    expect(reading.has("vllm:spec_decode_num_drafts_total")).toBe(false);
    expect(reading.has("process_cpu_seconds_total")).toBe(false);
    expect(reading.has("vllm:time_to_first_token_seconds_bucket")).toBe(false);
  });

  it("tells an engine's exposition from another program's", () => {
    expect(hasEngineMetrics(EXPOSITION)).toBe(true);
    expect(hasEngineMetrics("sglang:num_running_reqs 1\n")).toBe(true);
    expect(hasEngineMetrics("# HELP go_gc_duration_seconds x\ngo_gc_duration_seconds 0.1\n")).toBe(false);
  });
});

function read(lines: Record<string, number>) {
  const text = Object.entries(lines)
    .map(([name, value]) => `${name}{model_name="m"} ${value}`)
    .join("\n");
  return readExposition(text, SERVER_METRIC_NAMES);
}

describe("LevelServerMetrics", () => {
  it("averages gauges over the level's scrapes, differences counters and histograms across it", () => {
    const level = new LevelServerMetrics();
    level.baseline(
      read({
        "vllm:num_requests_running": 0,
        "vllm:num_preemptions_total": 40,
        "vllm:prefix_cache_queries_total": 1000,
        "vllm:prefix_cache_hits_total": 100,
        "vllm:time_to_first_token_seconds_sum": 10,
        "vllm:time_to_first_token_seconds_count": 100,
        "vllm:request_time_per_output_token_seconds_sum": 2,
        "vllm:request_time_per_output_token_seconds_count": 100,
      }),
    );
    level.sample(
      read({ "vllm:num_requests_running": 2, "vllm:num_requests_waiting": 0, "vllm:kv_cache_usage_perc": 0.2 }),
    );
    level.sample(
      read({ "vllm:num_requests_running": 4, "vllm:num_requests_waiting": 6, "vllm:kv_cache_usage_perc": 0.9 }),
    );
    level.final(
      read({
        "vllm:num_requests_running": 0,
        "vllm:num_preemptions_total": 43,
        "vllm:prefix_cache_queries_total": 3000,
        "vllm:prefix_cache_hits_total": 1100,
        "vllm:time_to_first_token_seconds_sum": 13,
        "vllm:time_to_first_token_seconds_count": 110,
        "vllm:request_time_per_output_token_seconds_sum": 2.25,
        "vllm:request_time_per_output_token_seconds_count": 110,
      }),
    );
    const { figures, sources, notes } = level.result();
    expect(figures).toEqual({
      server_running_requests_mean: 3,
      server_running_requests_max: 4,
      server_waiting_requests_mean: 3,
      server_waiting_requests_max: 6,
      server_kv_cache_usage_mean: 0.55,
      server_kv_cache_usage_max: 0.9,
      server_metrics_samples: 2,
      server_preemptions: 3,
      server_prefix_cache_hit_rate: 0.5,
      server_mean_ttft_ms: 300,
      server_mean_tpot_ms: 25,
    });
    expect(sources.server_prefix_cache_hit_rate).toBe("vllm:prefix_cache_hits_total / vllm:prefix_cache_queries_total");
    expect(notes).toEqual([]);
  });

  it("leaves out what the server does not expose, and what it did not observe: never a 0", () => {
    const level = new LevelServerMetrics();
    const idle = { "vllm:prefix_cache_queries_total": 500, "vllm:prefix_cache_hits_total": 5 };
    level.baseline(read(idle));
    level.final(read(idle));
    // No scrape landed inside the level, no prompt looked up, no histogram at all.
    expect(level.result().figures).toEqual({});
  });

  it("takes the older names when the current ones are missing", () => {
    const level = new LevelServerMetrics();
    level.baseline(
      read({ "vllm:time_per_output_token_seconds_sum": 1, "vllm:time_per_output_token_seconds_count": 100 }),
    );
    level.sample(read({ "vllm:gpu_cache_usage_perc": 0.4 }));
    level.final(
      read({ "vllm:time_per_output_token_seconds_sum": 1.5, "vllm:time_per_output_token_seconds_count": 150 }),
    );
    const { figures, sources } = level.result();
    expect(figures.server_kv_cache_usage_mean).toBe(0.4);
    expect(sources.server_kv_cache_usage_mean).toBe("vllm:gpu_cache_usage_perc");
    // vLLM's old time_per_output_token histogram observed every token gap: it is ITL, not TPOT.
    expect(figures.server_mean_itl_ms).toBe(10);
    expect(figures.server_mean_tpot_ms).toBeUndefined();
  });

  it("a counter that went down (a restart) is left out, with a note", () => {
    const level = new LevelServerMetrics();
    level.baseline(read({ "vllm:num_preemptions_total": 50 }));
    level.final(read({ "vllm:num_preemptions_total": 2 }));
    const result = level.result();
    expect(result.figures.server_preemptions).toBeUndefined();
    expect(result.notes).toEqual([
      "vllm:num_preemptions_total went down during the level (the server restarted?): left out",
    ]);
  });

  it("SGLang: cached over prompt tokens; without the cached counter, the hit-rate gauge; speculative gauges above 0", () => {
    const level = new LevelServerMetrics();
    level.baseline(read({ "sglang:prompt_tokens_total": 0 }));
    level.sample(read({ "sglang:cache_hit_rate": 0.25, "sglang:spec_accept_length": 0, "sglang:num_running_reqs": 1 }));
    level.sample(
      read({ "sglang:cache_hit_rate": 0.35, "sglang:spec_accept_length": 2.5, "sglang:spec_accept_rate": 0.5 }),
    );
    level.final(read({ "sglang:prompt_tokens_total": 900 }));
    const { figures, sources } = level.result();
    expect(figures.server_prefix_cache_hit_rate).toBe(0.3);
    expect(sources.server_prefix_cache_hit_rate).toBe("sglang:cache_hit_rate");
    // The 0 of a scrape that was not speculating is not averaged in.
    expect(figures.server_spec_acceptance_length).toBe(2.5);
    expect(figures.server_spec_acceptance_rate).toBe(0.5);
    expect(figures.server_running_requests_mean).toBe(1);
  });
});
