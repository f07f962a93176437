/**
 * lighteval results files: results/<model>/results_<date>.json. `results` maps a task key to its metrics
 * ({metric: value, "<metric>_stderr": stderr}); beside it `config_general` (the model, max_samples, generation
 * parameters), `versions`, `config_tasks` (each task's metric list and document counts), `summary_tasks` and
 * `summary_general` (hashes of prompts and answers).
 *
 * A task key is "<suite>|<task>|<few-shot>" ("lighteval|gsm8k|5", "custom|math_500|0") up to lighteval 0.10, and
 * "<task>|<few-shot>" ("anli:r1|0") since. A score's task is the key without its few-shot field, the way the file's
 * `config_tasks` named it in those versions ("custom|math_500"): the suite stays, since "leaderboard|arc:challenge"
 * and "lighteval|arc:challenge" prompt differently.
 */
import type { AccuracyScore } from "@/lib/document/schema";
import type { AccuracyImport, AccuracyParser } from "./accuracy-types";
import { asRecord } from "./common";
import { generationSettings, ScoreSheet, statedCount, statedFigure, statedStderr } from "./lm-eval";
import { FormatError, type SourceFile } from "./types";

const EVALUATOR = "lighteval";

/**
 * The plain mean of each metric over every task of the run, benchmarks mixed: it is skipped, with no warning, since
 * the task rows hold all it is computed from. The "<task>:_average" rows lighteval adds for a benchmark's subsets
 * (mmlu's) are kept: like lm-eval's groups, they are the benchmark's own score.
 */
const RUN_AVERAGE = "all";

interface TaskKey {
  /** The key as the file writes it. */
  key: string;
  /** The key without its few-shot field. */
  task: string;
  num_fewshot?: number;
}

function splitTaskKey(key: string): TaskKey {
  const fields = key.split("|");
  const last = fields[fields.length - 1] ?? "";
  if (fields.length < 2 || !/^\d+$/.test(last)) return { key, task: key };
  return { key, task: fields.slice(0, -1).join("|"), num_fewshot: Number(last) };
}

/**
 * The task names of the file's keys. Two keys that differ only in their few-shot count ("lighteval|gsm8k|0" and
 * "lighteval|gsm8k|5") would make two scores of one task, metric and filter: those keep their whole key as the name.
 */
function taskKeys(keys: string[]): TaskKey[] {
  const split = keys.map(splitTaskKey);
  const uses = new Map<string, number>();
  for (const { task } of split) uses.set(task, (uses.get(task) ?? 0) + 1);
  return split.map((entry) => ((uses.get(entry.task) ?? 0) > 1 ? { ...entry, task: entry.key } : entry));
}

/** The task's entry of `config_tasks`: keyed like `results` since 0.11, without the few-shot field before. */
function taskConfig(
  configTasks: Record<string, unknown> | undefined,
  key: TaskKey,
): Record<string, unknown> | undefined {
  return asRecord(configTasks?.[key.key]) ?? asRecord(configTasks?.[splitTaskKey(key.key).task]);
}

/** Whether a higher value of the metric is better, from the task config's metric list (`metrics`, `metric` before). */
function higherIsBetter(config: Record<string, unknown> | undefined, metric: string): boolean | undefined {
  const list = config?.metrics ?? config?.metric;
  if (!Array.isArray(list)) return undefined;
  const direction = list.map(asRecord).find((entry) => entry?.metric_name === metric)?.higher_is_better;
  return typeof direction === "boolean" ? direction : undefined;
}

/** lighteval_sha is the git commit lighteval ran from, or "?" when it was not installed from a clone. */
function lightevalCommit(value: unknown): string | undefined {
  return typeof value === "string" && /^[0-9a-f]{7,40}$/i.test(value.trim()) ? value.trim() : undefined;
}

function parse(file: SourceFile): AccuracyImport {
  const root = asRecord(file.data);
  if (!root) throw new FormatError("", "A lighteval results file should be a JSON object.");
  const general = asRecord(root.config_general);
  if (!general) throw new FormatError("config_general", "config_general should be an object.");
  const results = asRecord(root.results);
  if (!results) throw new FormatError("results", "results should be an object of tasks.");
  const modelConfig = asRecord(general.model_config);
  const maxSamples = general.max_samples;
  const shared: Partial<AccuracyScore> = {
    evaluator_version: lightevalCommit(general.lighteval_sha),
    limit: typeof maxSamples === "number" && Number.isFinite(maxSamples) && maxSamples >= 0 ? maxSamples : undefined,
    // The model's settings, for every task of the run: config_general.generation_parameters up to 0.10,
    // config_general.model_config.generation_parameters since.
    generation: generationSettings(general.generation_parameters ?? modelConfig?.generation_parameters),
  };
  const configTasks = asRecord(root.config_tasks);
  const sheet = new ScoreSheet();
  for (const key of taskKeys(Object.keys(results).filter((name) => name !== RUN_AVERAGE))) {
    const path = `results.${key.key}`;
    const metrics = asRecord(results[key.key]);
    if (!metrics) throw new FormatError(path, `${path} should be an object of metrics.`);
    const config = taskConfig(configTasks, key);
    const samples = statedCount(config?.effective_num_docs);
    for (const [metric, stated] of Object.entries(metrics)) {
      if (metric.endsWith("_stderr") && metric.slice(0, -"_stderr".length) in metrics) continue;
      const figure = statedFigure(stated, `${path}.${metric}`);
      if ("missing" in figure) {
        sheet.skip(key.task, metric, undefined, figure.missing);
        continue;
      }
      const stderrKey = `${metric}_stderr`;
      const stderr = stderrKey in metrics ? statedStderr(metrics[stderrKey], `${path}.${stderrKey}`) : undefined;
      sheet.add(
        {
          ...shared,
          evaluator: EVALUATOR,
          task: key.task,
          metric,
          value: figure.value,
          higher_is_better: higherIsBetter(config, metric),
          num_fewshot: key.num_fewshot ?? statedCount(config?.num_fewshots),
          samples,
        },
        `${path}.${metric}`,
        stderr,
      );
    }
  }
  if (sheet.empty) throw new FormatError("results", "results states no score: no task has a metric.");
  const modelName = [general.model_name, modelConfig?.model_name].find(
    (name): name is string => typeof name === "string" && name.trim() !== "",
  );
  return {
    format: "lighteval",
    file: file.name,
    scores: sheet.scores,
    model: modelName?.trim(),
    // None: config_general's start_time and end_time are readings of a monotonic clock (time.perf_counter), not
    // dates, and the date in the file's name is not read (a parser never reads the name).
    measured_at: undefined,
    warnings: sheet.allWarnings(),
  };
}

function detect(file: SourceFile): boolean {
  const root = asRecord(file.data);
  const general = asRecord(root?.config_general);
  const results = asRecord(root?.results);
  if (!root || !general || !results) return false;
  if (!Object.values(results).every((entry) => asRecord(entry) !== undefined)) return false;
  return (
    "lighteval_sha" in general ||
    asRecord(root.config_tasks) !== undefined ||
    asRecord(root.summary_tasks) !== undefined
  );
}

export const lightevalParser: AccuracyParser = {
  id: "lighteval",
  label: "lighteval results JSON",
  signature:
    '`config_general` (with `lighteval_sha`) beside a `results` object keyed by task ("lighteval|gsm8k|5", "gsm8k|5"), with `config_tasks` and `summary_tasks`',
  detect,
  parse,
};
