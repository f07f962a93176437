/**
 * The load level AIPerf and GenAI-Perf write into the names of their artifact folders, for their files that state
 * none (the CSV export). Only the tools' own conventions count:
 *
 * - One run (GenAI-Perf `parser.py` `_set_artifact_paths`; AIPerf `UserConfig._compute_artifact_directory`):
 *   `<model>-<service kind>-<stimulus>`, the service kind being `openai-<endpoint type>`, `triton-<backend>` or
 *   `tensorrtllm_engine`, the stimulus `concurrency<N>`, `request_rate<R>` (Python's float text: `request_rate8.0`)
 *   or, in AIPerf, both: `concurrency<N>-request_rate<R>`. E.g. `Qwen_Qwen3-0.6B-openai-chat-concurrency4`.
 * - An AIPerf sweep (`--concurrency 16,32,64`): one folder `concurrency_<N>` per value, the run's files in it or,
 *   with several trials per value, in `concurrency_<N>/profile_runs/trial_<NNNN>/` (or `run_<NNNN>`).
 *
 * A folder named otherwise (`run-10`, `c16`, `concurrency-16`, `my-concurrency16`) gives nothing.
 */
import type { GivenLevel } from "./types";

// <model>-<service kind>-<level>: the service kind is openai-<endpoint>, triton-<backend> or tensorrtllm_engine; the
// level concurrency<N>, request_rate<R> or both.
const RUN_FOLDER =
  /^.+-(?:openai-[a-z][a-z0-9_]*|triton-[a-z][a-z0-9_]*|tensorrtllm_engine)-(?:concurrency([1-9]\d*)(?:-request_rate(\d+(?:\.\d+)?))?|request_rate(\d+(?:\.\d+)?))$/;
const SWEEP_FOLDER = /^concurrency_([1-9]\d*)$/;
const TRIAL_FOLDER = /^(?:trial|run)_\d+$/;

/** The level a folder's own name states by the tools' convention, or undefined. */
export function levelOfFolderName(folder: string): Omit<GivenLevel, "source" | "byPerson"> | undefined {
  const sweep = SWEEP_FOLDER.exec(folder);
  if (sweep) return { concurrency: Number(sweep[1]) };
  const run = RUN_FOLDER.exec(folder);
  if (!run) return undefined;
  const [, concurrency, cappedRate, rate] = run;
  const level: Omit<GivenLevel, "source" | "byPerson"> = {};
  if (concurrency !== undefined) level.concurrency = Number(concurrency);
  const requestRate = cappedRate ?? rate;
  if (requestRate !== undefined) {
    const value = Number(requestRate);
    if (!(value > 0) || !Number.isFinite(value)) return undefined;
    level.request_rate = value;
  }
  return level;
}

/**
 * The level of an uploaded file from the folders of its name (a path inside a folder or zip upload): its own folder,
 * or for an AIPerf sweep's trials the `concurrency_<N>` folder above `profile_runs/trial_<NNNN>/`.
 */
export function levelFromFolders(name: string): GivenLevel | undefined {
  const folders = name.split("/").slice(0, -1);
  const own = folders.at(-1);
  if (own === undefined) return undefined;
  const direct = levelOfFolderName(own);
  if (direct) return { ...direct, source: `from the folder name ${own}`, byPerson: false };
  if (folders.length >= 3 && TRIAL_FOLDER.test(own) && folders.at(-2) === "profile_runs") {
    const value = folders.at(-3)!;
    const match = SWEEP_FOLDER.exec(value);
    if (match) return { concurrency: Number(match[1]), source: `from the folder name ${value}`, byPerson: false };
  }
  return undefined;
}
