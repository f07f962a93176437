/**
 * The second demo example: real `benchmark_serving.py` result files (lib/demo/files/minimax-m2.5-h200, whose
 * SOURCE.txt names repository, path and commit of each), imported at seed time by the same parsers an upload
 * uses. What the files do not say (engine, GPU, GPU count, workload, launch command) is supplied the way a person
 * supplies it on the upload form, from the source repository's scripts and file names; each run's notes say so.
 */
import type { RunDocumentInput } from "@/lib/document/schema";
import type { SeriesSettingsPatch } from "@/lib/series/settings";
import { DEMO_RUNS, DEMO_TAG } from "./runs";

/** Where the files are, inside the repository (a clone has them; nothing outside it is read). */
export const EXAMPLE_FILES_DIR = "minimax-m2.5-h200";

const SOURCE =
  "Real vLLM benchmark_serving.py results from github.com/SemiAnalysisAI/InferenceX, " +
  "experimental/token_position_decode_slo/minimax-m2.5/results at commit 843c6254 (lib/demo/files/minimax-m2.5-h200/SOURCE.txt).";
const HARDWARE_SOURCE =
  "The GPU and count come from the repository's slurm scripts (partition h200, --gres=gpu:8); the files record only " +
  "median and p99 latencies, no means.";

/**
 * The launch of each sweep, as far as the repository states it: the parallelism flags only. TEP8's are those of
 * serve_minimax_tep8_sbatch.sh; DEP8 has no launch script there, so its command holds what its name says, in the
 * spelling of the repository's own recipes (DEP4 is `--data-parallel-size 4 --enable-expert-parallel`). The
 * script's other flags are left out of both: with them on one side only, a comparison would list them as added.
 */
const DEP8_COMMAND = "vllm serve MiniMaxAI/MiniMax-M2.5 --data-parallel-size 8 --enable-expert-parallel";
const TEP8_COMMAND = "vllm serve MiniMaxAI/MiniMax-M2.5 --tensor-parallel-size 8 --enable-expert-parallel";

/** One named series holds the four sweeps, in the order they ran, so the move from DEP8 to TEP8 is judged. */
export const EXAMPLE_SERIES_NAME = "MiniMax-M2.5 on 8× H200, DEP8 then TEP8 (example)";

/**
 * The series is judged on p99 TPOT, p99 TTFT and output throughput at 16 concurrent requests (a level all four
 * sweeps measured), from two earlier runs instead of five: the files are one afternoon's sweeps, not a month of
 * nightly runs.
 */
export const EXAMPLE_SERIES_SETTINGS: SeriesSettingsPatch = {
  min_samples: 2,
  level: "c:16",
  figures: ["p99_tpot_ms", "p99_ttft_ms", "output_throughput"],
};

export interface ExampleSweep {
  /** The result files of this sweep, one per concurrency level. */
  filePrefix: string;
  /** What a person would type on the upload form: everything the files lack. */
  context: Omit<RunDocumentInput, "format" | "results">;
}

const model = "MiniMaxAI/MiniMax-M2.5";
const hardware = { gpu: "H200", gpu_count: 8 };
const tags = [DEMO_TAG, "h200", "minimax-m2.5", "inferencex"];

function workload(inputLen: number) {
  // bmk_minimax_sbatch.sh: random prompts, 128 output tokens, 10 prompts per concurrent request.
  return { dataset: "random", input_len: inputLen, output_len: 128 };
}

const DEP8_NOTE =
  "DEP8: data parallel 8 with expert parallelism. Its launch script is not in the repository: the command holds " +
  "only what the name dep8 says, spelled as the repository's recipes spell DEP4 (--data-parallel-size 4 " +
  "--enable-expert-parallel).";
const TEP8_NOTE =
  "TEP8: tensor parallel 8 with expert parallelism, launched by serve_minimax_tep8_sbatch.sh (vLLM wheel of commit " +
  "dea63512). The command holds its parallelism flags only, since DEP8's other flags are not known; the script " +
  "also sets --tool-call-parser minimax_m2, --reasoning-parser minimax_m2_append_think, --enable-auto-tool-choice " +
  "and --trust-remote-code.";

/** Oldest first: the order the sweeps ran (each file's own `date`). */
export const EXAMPLE_SWEEPS: readonly ExampleSweep[] = [
  {
    filePrefix: "minimax_m25_vllm_dep8_isl1024_osl128_",
    context: {
      name: "MiniMax-M2.5 DEP8, 1024 in",
      engine: "vllm",
      model,
      hardware,
      command: DEP8_COMMAND,
      workload: workload(1024),
      series: EXAMPLE_SERIES_NAME,
      tags,
      notes: `Example data. ${SOURCE} ${DEP8_NOTE} ${HARDWARE_SOURCE} Concurrency 32 was not measured for DEP8.`,
    },
  },
  {
    filePrefix: "minimax_m25_vllm_dep8_isl2048_osl128_",
    context: {
      name: "MiniMax-M2.5 DEP8, 2048 in",
      engine: "vllm",
      model,
      hardware,
      command: DEP8_COMMAND,
      workload: workload(2048),
      series: EXAMPLE_SERIES_NAME,
      tags,
      notes: `Example data. ${SOURCE} ${DEP8_NOTE} ${HARDWARE_SOURCE} Only concurrency 4, 8 and 16 were measured.`,
    },
  },
  {
    filePrefix: "minimax_m25_vllm_tep8_isl1024_osl128_",
    context: {
      name: "MiniMax-M2.5 TEP8, 1024 in",
      engine: "vllm",
      model,
      hardware,
      command: TEP8_COMMAND,
      workload: workload(1024),
      series: EXAMPLE_SERIES_NAME,
      tags,
      notes:
        `Example data. ${SOURCE} ${TEP8_NOTE} ${HARDWARE_SOURCE} Measured after the DEP8 sweeps: at 16 concurrent ` +
        "requests p99 TPOT rose from 30.4 ms (DEP8, 1024 in) to 39.1 ms.",
    },
  },
  {
    filePrefix: "minimax_m25_vllm_tep8_isl2048_osl128_",
    context: {
      name: "MiniMax-M2.5 TEP8, 2048 in",
      engine: "vllm",
      model,
      hardware,
      command: TEP8_COMMAND,
      workload: workload(2048),
      series: EXAMPLE_SERIES_NAME,
      tags,
      notes:
        `Example data. ${SOURCE} ${TEP8_NOTE} ${HARDWARE_SOURCE} At 16 concurrent requests p99 TPOT was 32.4 ms, ` +
        "against 29.9 ms for DEP8 at 2048 input tokens: the second worse run in a row, so the series reports the " +
        "move to TEP8 as a regression of p99 TPOT at C=16 (30.2 → 35.7 ms, the mean of each pair).",
    },
  },
];

/** On the series' alert: what changed, in the words of the person who would look into it. */
export const EXAMPLE_ALERT_NOTE =
  "Example data. The sweeps from 14:22 UTC on ran TEP8 (tensor parallel 8) where the earlier ones ran DEP8 (data " +
  "parallel 8), both with expert parallelism: p99 TPOT at C=16 rose from 30.4 to 39.1 ms at 1024 input tokens and " +
  "from 29.9 to 32.4 ms at 2048.";

/** The saved comparison of the two sweeps at 1024 input tokens: the compare page with targets and a price. */
export const EXAMPLE_COMPARISON = {
  title: "MiniMax-M2.5 on 8× H200: DEP8 against TEP8 (example)",
  notes:
    "Example data: the two 1024-token sweeps of the MiniMax-M2.5 example. Charts show medians because the files " +
    "record only medians and p99s. The targets (p99 TTFT 2 s, p99 TPOT 50 ms) and the price ($3.50 per " +
    "H200-hour) are example choices, not from the source; change them on the page.",
  stat: "median" as const,
  slo: { ttft_ms: 2000, tpot_ms: 50, stat: "p99" as const },
  price: "3.5",
};

/** Every run a fresh start loads: the campaign's and the example's. */
export const DEMO_RUN_COUNT = DEMO_RUNS.length + EXAMPLE_SWEEPS.length;
