/**
 * Fills a running servebench with real benchmark output through its own API, the way a team's history looks
 * after a few days: the campaign's three runs, a vLLM sweep folder stored as one run with repeats, SGLang's
 * request-rate sweep, guidellm and llama-bench reports, and a saved comparison. Used by `npm run lighthouse`
 * and by the browser tests of every page's layout, so both look at the same data.
 */
import fs from "node:fs";
import path from "node:path";

const FIXTURES = path.join(__dirname, "..", "..", "tests", "fixtures");

export interface RealData {
  /** Run ids in upload order. */
  runIds: string[];
  campaign: { vllm: string; noGraphs: string; graphs: string };
  /** The saved comparison of the campaign's three runs. */
  slug: string;
  /** A series with more than one run, when the data has one. */
  seriesId: string | null;
  /** The nightly series whose throughput drops: its detected changes, an expected change and an open alert. */
  regressionSeriesId: string;
}

async function post(url: string, init: RequestInit, expected: number[]): Promise<unknown> {
  const response = await fetch(url, init);
  if (!expected.includes(response.status)) {
    throw new Error(`POST ${new URL(url).pathname} answered ${response.status}: ${await response.text()}`);
  }
  return response.json();
}

async function uploadJson(baseUrl: string, relative: string): Promise<string> {
  const body = fs.readFileSync(path.join(FIXTURES, relative), "utf8");
  const stored = (await post(
    `${baseUrl}/api/runs`,
    { method: "POST", headers: { "content-type": "application/json" }, body },
    [200, 201],
  )) as { id: string };
  return stored.id;
}

/** Files through the multipart upload the form uses, with the fields their tools do not record. */
async function uploadFiles(
  baseUrl: string,
  files: string[],
  fields: Record<string, string>,
): Promise<{ id: string; runs?: { id: string }[] }> {
  const form = new FormData();
  for (const relative of files) {
    form.append("file", new Blob([fs.readFileSync(path.join(FIXTURES, relative))]), relative);
  }
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  return (await post(`${baseUrl}/api/runs`, { method: "POST", body: form }, [200, 201])) as {
    id: string;
    runs?: { id: string }[];
  };
}

/**
 * Eleven nights of the campaign's CUDA-graphs run in one named series, a day apart: six steady (the figures
 * moved by under 1%, as reruns do), then every figure 22% worse from the seventh night on, so the seventh is
 * detected as a regression and opens an alert. A driver update marked as an expected change two nights later
 * puts a second mark beside the first on the chart.
 */
const NIGHTLY_FACTORS = [1, 0.994, 1.006, 0.998, 1.003, 0.996, 0.78, 0.776, 0.783, 0.779, 0.781];

async function seedRegressionSeries(baseUrl: string): Promise<string> {
  const source = JSON.parse(
    fs.readFileSync(path.join(FIXTURES, "servebench/sglang-tp8-cuda-graphs-on.json"), "utf8"),
  ) as { results: Record<string, number>[] } & Record<string, unknown>;
  const runIds: string[] = [];
  let seriesId = "";
  for (const [night, factor] of NIGHTLY_FACTORS.entries()) {
    const document = {
      ...source,
      name: `SGLang TP8 nightly ${night + 1}`,
      series: "sglang-tp8-nightly",
      git_commit: (night + 1).toString(16).padStart(8, "0").repeat(5),
      measured_at: new Date(Date.UTC(2026, 10, 20 + night, 2)).toISOString(),
      results: source.results.map((point) => ({
        ...point,
        output_throughput: Math.round(point.output_throughput! * factor * 10) / 10,
        ...(point.mean_tpot_ms === undefined
          ? {}
          : { mean_tpot_ms: Math.round((point.mean_tpot_ms / factor) * 100) / 100 }),
      })),
    };
    const stored = (await post(
      `${baseUrl}/api/runs`,
      { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(document) },
      [201],
    )) as { id: string; series?: { series: { id: string } } };
    runIds.push(stored.id);
    seriesId = stored.series?.series.id ?? seriesId;
  }
  await post(
    `${baseUrl}/api/series/${seriesId}/annotations`,
    {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ run_id: runIds[8], note: "driver 580" }),
    },
    [201],
  );
  return seriesId;
}

export async function seedRealData(baseUrl: string): Promise<RealData> {
  const runIds: string[] = [];
  const vllm = await uploadJson(baseUrl, "servebench/vllm-tp8-baseline.json");
  const noGraphs = await uploadJson(baseUrl, "servebench/sglang-tp8-cuda-graph-disabled.json");
  const graphs = await uploadJson(baseUrl, "servebench/sglang-tp8-cuda-graphs-on.json");
  runIds.push(vllm, noGraphs, graphs);

  const sweep = "vllm/vllm_sweep_v0.25.1";
  const sweepFiles = fs
    .readdirSync(path.join(FIXTURES, sweep))
    .sort()
    .flatMap((combo) => ["run=0.json", "run=1.json"].map((file) => `${sweep}/${combo}/${file}`));
  const sweepRuns = await uploadFiles(baseUrl, sweepFiles, {
    split: "1",
    repeats: "one_run",
    engine: "vllm",
    gpu: "NVIDIA L4",
    gpu_count: "1",
    series: "vllm-opt-125m-nightly",
  });
  runIds.push(...(sweepRuns.runs ?? [{ id: sweepRuns.id }]).map((run) => run.id));

  // SGLang's request-rate sweep: the first five lines are one configuration (lines 6 and 7 another).
  const sglang = await uploadFiles(baseUrl, ["sglang/llama_3_3_70b_online_output.jsonl"], {
    fragments: "0,1,2,3,4",
    engine: "sglang",
    model: "meta-llama/Llama-3.3-70B-Instruct",
    gpu: "NVIDIA H100 80GB HBM3",
    gpu_count: "8",
  });
  runIds.push(sglang.id);

  // Llama-3.1-8B on an H100: another model and GPU than the opt-125m series, so each joins the series of its own
  // configuration (a named series refuses a run of another model).
  for (const file of ["vllm/benchmark_2025-05-13_04-55-27.json", "vllm/benchmark_2025-05-13_05-00-45.json"]) {
    const stored = await uploadFiles(baseUrl, [file], {
      engine: "vllm",
      gpu: "NVIDIA H100 80GB HBM3",
      gpu_count: "1",
    });
    runIds.push(stored.id);
  }

  const saved = (await post(
    `${baseUrl}/api/comparisons`,
    {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        runs: [vllm, noGraphs, graphs],
        baseline: noGraphs,
        title: "CUDA graphs on SGLang, against vLLM",
      }),
    },
    [201],
  )) as { slug: string };

  // The list shows series of two runs or more; the longest is the one worth looking at.
  const listed = (await (await fetch(`${baseUrl}/api/series?per_page=100`)).json()) as {
    series: { id: string; run_count: number }[];
  };
  const seriesId = [...listed.series].sort((a, b) => b.run_count - a.run_count)[0]?.id ?? null;
  const regressionSeriesId = await seedRegressionSeries(baseUrl);

  return {
    runIds: [...new Set(runIds)],
    campaign: { vllm, noGraphs, graphs },
    slug: saved.slug,
    seriesId,
    regressionSeriesId,
  };
}
