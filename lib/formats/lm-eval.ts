/**
 * lm-evaluation-harness results files: what `lm_eval --output_path …` writes as results_<timestamp>.json.
 *
 * Since 0.4 each task under `results` holds "<metric>,<filter>" keys ("acc,none", "exact_match,strict-match") and
 * their "<metric>_stderr,<filter>" standard errors, beside the task configs (`configs`), few-shot counts (`n-shot`),
 * and, in later versions, the sample counts (`n-samples`), the direction of each metric (`higher_is_better`), the
 * model (`model_name`) and the harness version (`lm_eval_version`). The 0.3 series wrote bare metric keys ("acc",
 * "acc_stderr") with one `config.num_fewshot` for the whole run.
 *
 * The score-building rules lighteval shares (what a stated figure may be, generation settings as scalars, one score
 * per task × metric × filter, every score checked against the run document's schema) live here too, exported.
 */
import { type AccuracyScore, AccuracyScoreSchema } from "@/lib/document/schema";
import type { AccuracyImport, AccuracyParser } from "./accuracy-types";
import { asRecord, describeValue } from "./common";
import { FormatError, type SourceFile } from "./types";

const EVALUATOR = "lm-eval";

/** Texts evaluators write in place of a number: lm-eval's "N/A", and Python's NaN and infinities as decoded. */
const NOT_A_FIGURE = new Set(["N/A", "NaN", "Infinity", "-Infinity"]);

/** A figure as the file states it: a number, or one of the texts that say there is none. */
export type StatedFigure = { value: number } | { missing: string };

/** Reads a score or standard error; anything other than a number or a "no figure" text is a broken file. */
export function statedFigure(value: unknown, path: string): StatedFigure {
  if (typeof value === "number") return Number.isFinite(value) ? { value } : { missing: String(value) };
  if (typeof value === "string" && NOT_A_FIGURE.has(value)) return { missing: value };
  throw new FormatError(path, `${path} should be a number, but it is ${describeValue(value)}.`);
}

export type GenerationSettings = Record<string, string | number | boolean>;

/**
 * Generation settings as a record of scalars. Lists (lm-eval's `until`, lighteval's `stop_tokens`) and nested
 * objects become their JSON text, `["Question:","</s>"]`: unambiguous where a " | " join is not (a stop sequence
 * may itself hold " | " or a line break, which JSON escapes). Unset settings (null) are left out.
 */
export function generationSettings(value: unknown): GenerationSettings | undefined {
  const record = asRecord(value);
  if (!record) return undefined;
  const settings: GenerationSettings = {};
  for (const [key, setting] of Object.entries(record)) {
    if (setting === null || setting === undefined) continue;
    if (typeof setting === "string" || typeof setting === "boolean") settings[key] = setting;
    else if (typeof setting === "number") {
      if (Number.isFinite(setting)) settings[key] = setting;
    } else settings[key] = JSON.stringify(setting);
  }
  return Object.keys(settings).length > 0 ? settings : undefined;
}

/** Reads a standard error: a figure that, when it is a number, is not negative. */
export function statedStderr(value: unknown, path: string): StatedFigure {
  const figure = statedFigure(value, path);
  if ("value" in figure && figure.value < 0) {
    throw new FormatError(path, `${path} is a standard error and cannot be negative, but it is ${figure.value}.`);
  }
  return figure;
}

/** A whole number ≥ 0 stated as a number (not as text), else undefined. */
export function statedCount(value: unknown): number | undefined {
  return typeof value === "number" && Number.isInteger(value) && value >= 0 ? value : undefined;
}

/** How a score is named in messages: "gsm8k exact_match (strict-match)". */
function scoreLabel(task: string, metric: string, filter: string | undefined): string {
  return filter === undefined ? `${task} ${metric}` : `${task} ${metric} (${filter})`;
}

/** Names listed in a warning, the first few of them: a file of hundreds of tasks would otherwise bury the rest. */
function someOf(labels: string[]): string {
  const shown = 8;
  const listed = labels.slice(0, shown).join(", ");
  return labels.length > shown ? `${listed} and ${labels.length - shown} more` : listed;
}

function scoresCount(count: number): string {
  return count === 1 ? "1 score" : `${count} scores`;
}

/** A "no figure" text as a message shows it: "N/A" is quoted text in the file, NaN a bare JSON token. */
function shownAsStated(stated: string): string {
  return stated === "N/A" ? '"N/A"' : stated;
}

/** Appends `label` to the list of `reason`, keeping the reasons in the order they first came. */
function note(lists: Map<string, string[]>, reason: string, label: string): void {
  const list = lists.get(reason);
  if (list) list.push(label);
  else lists.set(reason, [label]);
}

/**
 * The scores of one file, in the file's order, each checked with AccuracyScoreSchema, none twice; and what a
 * person should know about the figures left out.
 */
export class ScoreSheet {
  readonly scores: AccuracyScore[] = [];
  private readonly warnings: string[] = [];
  private readonly keys = new Set<string>();
  /** Scores kept without a standard error, by what the file states in its place. */
  private readonly withoutStderr = new Map<string, string[]>();
  /** Metrics left out, by what the file states as their value. */
  private readonly skipped = new Map<string, string[]>();
  private metricsRead = 0;

  private static key(task: string, metric: string, filter: string | undefined): string {
    return JSON.stringify([task.trim(), metric.trim(), filter?.trim() ?? null]);
  }

  has(task: string, metric: string, filter: string | undefined): boolean {
    return this.keys.has(ScoreSheet.key(task, metric, filter));
  }

  /**
   * Adds a score read at `path` (the field of its value). A score that fails the schema is a broken file, except for
   * its generation settings: those are dropped with a warning (a stop sequence with a control character, say).
   */
  add(score: AccuracyScore, path: string, stderr: StatedFigure | undefined): void {
    this.metricsRead += 1;
    const label = scoreLabel(score.task, score.metric, score.filter);
    if (this.has(score.task, score.metric, score.filter)) {
      this.warnings.push(`${label} is stated twice; the first is kept (${path} is not).`);
      return;
    }
    // Fields the file does not state are left out rather than carried as undefined.
    const stated = Object.fromEntries(
      Object.entries({ ...score, stderr: stderr && "value" in stderr ? stderr.value : undefined }).filter(
        ([, value]) => value !== undefined,
      ),
    ) as AccuracyScore;
    let checked = AccuracyScoreSchema.safeParse(stated);
    if (!checked.success && stated.generation) {
      const { generation: _unkept, ...withoutGeneration } = stated;
      const retried = AccuracyScoreSchema.safeParse(withoutGeneration);
      if (retried.success) {
        const issue = checked.error.issues[0];
        this.warnings.push(
          `${label}: its generation settings are not kept (${issue?.path.join(".")}: ${issue?.message}).`,
        );
        checked = retried;
      }
    }
    if (!checked.success) {
      const issue = checked.error.issues[0];
      throw new FormatError(path, `${path} cannot be imported: ${issue?.path.join(".")} ${issue?.message}.`);
    }
    this.keys.add(ScoreSheet.key(score.task, score.metric, score.filter));
    this.scores.push(checked.data);
    if (stderr === undefined) note(this.withoutStderr, "none", label);
    else if ("missing" in stderr) note(this.withoutStderr, shownAsStated(stderr.missing), label);
  }

  /** A metric whose value is no number ("N/A", NaN): no score, and a warning. */
  skip(task: string, metric: string, filter: string | undefined, stated: string): void {
    this.metricsRead += 1;
    note(this.skipped, shownAsStated(stated), scoreLabel(task, metric, filter));
  }

  /** True when the file stated no metric at all, not even one without a value. */
  get empty(): boolean {
    return this.metricsRead === 0;
  }

  allWarnings(): string[] {
    const warnings = [...this.warnings];
    for (const [stated, labels] of this.skipped) {
      warnings.push(
        `Skipped ${scoresCount(labels.length)} whose value the file states as ${stated}: ${someOf(labels)}.`,
      );
    }
    for (const [stated, labels] of this.withoutStderr) {
      warnings.push(
        `No standard error for ${scoresCount(labels.length)} (the file states ${stated}): ${someOf(labels)}.`,
      );
    }
    return warnings;
  }
}

/** The evaluation's date from unix seconds, when it is a plausible one (between 2000 and 2100). */
function isoFromUnixSeconds(value: unknown): string | undefined {
  if (typeof value !== "number" || !Number.isFinite(value)) return undefined;
  const ms = value * 1000;
  if (ms < Date.UTC(2000, 0, 1) || ms >= Date.UTC(2100, 0, 1)) return undefined;
  return new Date(ms).toISOString();
}

/** The model named by `model_args`: its `pretrained=` or, for API models, `model=`; a string or an object. */
function modelFromArgs(args: unknown): string | undefined {
  const keys = ["pretrained", "model"];
  const record = asRecord(args);
  if (record) {
    for (const key of keys) {
      const value = record[key];
      if (typeof value === "string" && value.trim() !== "") return value.trim();
    }
    return undefined;
  }
  if (typeof args !== "string") return undefined;
  const pairs = args.split(",").map((pair) => pair.trim());
  for (const key of keys) {
    const pair = pairs.find((candidate) => candidate.startsWith(`${key}=`));
    const value = pair?.slice(key.length + 1).trim();
    if (value) return value;
  }
  return undefined;
}

/** The harness version, when `lm_eval_version` holds one (it holds the error text when the lookup failed). */
function harnessVersion(value: unknown): string | undefined {
  return typeof value === "string" && /^\d+\.\d+\S*$/.test(value.trim()) ? value.trim() : undefined;
}

/** A "<metric>,<filter>" key of lm-eval 0.4: a metric name, one comma, a filter name. */
const FILTERED_KEY = /^[^,\s][^,]*,[^,]+$/;

function hasFilteredKeys(entry: Record<string, unknown>): boolean {
  return Object.entries(entry).some(
    ([key, value]) => FILTERED_KEY.test(key) && (typeof value === "number" || NOT_A_FIGURE.has(String(value))),
  );
}

/** What the file states about one task, beside its scores. */
interface TaskFacts {
  num_fewshot?: number;
  samples?: number;
  generation?: GenerationSettings;
  higherIsBetter(metric: string): boolean | undefined;
}

/** The facts of a task, read from the maps lm-eval writes beside `results` (each one missing in some versions). */
function taskFacts(root: Record<string, unknown>, task: string): TaskFacts {
  const config = asRecord(asRecord(root.configs)?.[task]);
  const directions = asRecord(asRecord(root.higher_is_better)?.[task]);
  const metricList = Array.isArray(config?.metric_list) ? config.metric_list.map(asRecord) : [];
  return {
    num_fewshot: statedCount(asRecord(root["n-shot"])?.[task]) ?? statedCount(config?.num_fewshot),
    samples: statedCount(asRecord(asRecord(root["n-samples"])?.[task])?.effective),
    // The task config as it ran: `--gen_kwargs` overrides (config.gen_kwargs) are already merged into it.
    generation: generationSettings(config?.generation_kwargs),
    higherIsBetter(metric) {
      const direction = directions?.[metric];
      if (typeof direction === "boolean") return direction;
      // Before the `higher_is_better` map (0.4.0–0.4.2), each task config's metric_list says it.
      const listed = metricList.find((entry) => entry?.metric === metric)?.higher_is_better;
      return typeof listed === "boolean" ? listed : undefined;
    },
  };
}

/** What every score of the file shares. */
interface RunFacts {
  evaluator_version?: string;
  limit?: number;
}

/** The scores of one task of a 0.4 file: every "<metric>,<filter>" key but the standard errors. */
function readFilteredTask(
  sheet: ScoreSheet,
  task: string,
  entry: Record<string, unknown>,
  path: string,
  facts: TaskFacts,
  run: RunFacts,
  onlyNew: boolean,
): void {
  for (const [key, stated] of Object.entries(entry)) {
    // "alias", the placeholder " " of a group that has no aggregate of its own, "samples" of some versions.
    const comma = key.indexOf(",");
    if (comma < 0) continue;
    const metric = key.slice(0, comma);
    const filter = key.slice(comma + 1);
    if (metric.endsWith("_stderr") && `${metric.slice(0, -"_stderr".length)},${filter}` in entry) continue;
    if (onlyNew && sheet.has(task, metric, filter)) continue;
    const figure = statedFigure(stated, `${path}.${key}`);
    if ("missing" in figure) {
      sheet.skip(task, metric, filter, figure.missing);
      continue;
    }
    const stderrKey = `${metric}_stderr,${filter}`;
    const stderr = stderrKey in entry ? statedStderr(entry[stderrKey], `${path}.${stderrKey}`) : undefined;
    sheet.add(
      {
        evaluator: EVALUATOR,
        evaluator_version: run.evaluator_version,
        task,
        metric,
        // Kept as the file says, "none" included: lm-eval's name for "no filter".
        filter,
        value: figure.value,
        higher_is_better: facts.higherIsBetter(metric),
        num_fewshot: facts.num_fewshot,
        samples: facts.samples,
        limit: run.limit,
        generation: facts.generation,
      },
      `${path}.${key}`,
      stderr,
    );
  }
}

/** The scores of one task of a 0.3 file: bare metric keys, "<metric>_stderr" beside each, no filter. */
function readPlainTask(
  sheet: ScoreSheet,
  task: string,
  entry: Record<string, unknown>,
  path: string,
  numFewshot: number | undefined,
  run: RunFacts,
): void {
  for (const [metric, stated] of Object.entries(entry)) {
    if (metric === "alias" || metric.trim() === "") continue;
    if (metric.endsWith("_stderr") && metric.slice(0, -"_stderr".length) in entry) continue;
    const figure = statedFigure(stated, `${path}.${metric}`);
    if ("missing" in figure) {
      sheet.skip(task, metric, undefined, figure.missing);
      continue;
    }
    const stderrKey = `${metric}_stderr`;
    const stderr = stderrKey in entry ? statedStderr(entry[stderrKey], `${path}.${stderrKey}`) : undefined;
    sheet.add(
      {
        evaluator: EVALUATOR,
        evaluator_version: run.evaluator_version,
        task,
        metric,
        value: figure.value,
        num_fewshot: numFewshot,
        limit: run.limit,
      },
      `${path}.${metric}`,
      stderr,
    );
  }
}

/** The tasks of `results` (or `groups`), each an object, or the FormatError naming the one that is not. */
function taskEntries(value: unknown, path: string): [string, Record<string, unknown>][] {
  const tasks = asRecord(value);
  if (!tasks) throw new FormatError(path, `${path} should be an object of tasks, but it is ${describeValue(value)}.`);
  return Object.entries(tasks).map(([task, entry]) => {
    const metrics = asRecord(entry);
    if (!metrics) {
      throw new FormatError(
        `${path}.${task}`,
        `${path}.${task} should be an object of scores, but it is ${describeValue(entry)}.`,
      );
    }
    return [task, metrics];
  });
}

function parse(file: SourceFile): AccuracyImport {
  const root = asRecord(file.data);
  if (!root) throw new FormatError("", "An lm-evaluation-harness results file should be a JSON object.");
  const tasks = taskEntries(root.results, "results");
  const config = asRecord(root.config);
  const limit = config?.limit;
  const run: RunFacts = {
    evaluator_version: harnessVersion(root.lm_eval_version),
    limit: typeof limit === "number" && Number.isFinite(limit) && limit >= 0 ? limit : undefined,
  };
  const sheet = new ScoreSheet();
  if (tasks.some(([, entry]) => hasFilteredKeys(entry))) {
    for (const [task, entry] of tasks) {
      readFilteredTask(sheet, task, entry, `results.${task}`, taskFacts(root, task), run, false);
    }
    // Group aggregates are rows of `results` too (lm-eval prints them there, under the group's name): `groups`
    // repeats them, so it only adds a row `results` lacks.
    if (root.groups !== undefined) {
      for (const [group, entry] of taskEntries(root.groups, "groups")) {
        readFilteredTask(sheet, group, entry, `groups.${group}`, taskFacts(root, group), run, true);
      }
    }
  } else {
    const numFewshot = statedCount(config?.num_fewshot);
    for (const [task, entry] of tasks) readPlainTask(sheet, task, entry, `results.${task}`, numFewshot, run);
  }
  if (sheet.empty) throw new FormatError("results", "results states no score: no task has a metric.");
  const modelName =
    typeof root.model_name === "string" && root.model_name.trim() !== "" ? root.model_name.trim() : undefined;
  return {
    format: "lm-eval",
    file: file.name,
    scores: sheet.scores,
    model: modelName ?? modelFromArgs(config?.model_args),
    measured_at: isoFromUnixSeconds(root.date),
    warnings: sheet.allWarnings(),
  };
}

function detect(file: SourceFile): boolean {
  const root = asRecord(file.data);
  // lighteval writes `results` and `versions` too, always beside `config_general`.
  if (!root || "config_general" in root) return false;
  const results = asRecord(root.results);
  if (!results) return false;
  const entries = Object.values(results).map(asRecord);
  if (entries.length === 0 || entries.some((entry) => entry === undefined)) return false;
  const tasks = entries as Record<string, unknown>[];
  const besideResults = ["configs", "versions", "n-shot", "config"].some((key) => asRecord(root[key]) !== undefined);
  if (tasks.some(hasFilteredKeys)) return besideResults;
  // 0.3: bare metric keys, with `versions` and the run's `config` (its model_args) beside them.
  return (
    asRecord(root.versions) !== undefined &&
    asRecord(root.config)?.model_args !== undefined &&
    tasks.every((entry) => Object.values(entry).some((value) => typeof value === "number"))
  );
}

export const lmEvalParser: AccuracyParser = {
  id: "lm-eval",
  label: "lm-evaluation-harness results JSON",
  signature:
    'a `results` object of tasks holding "<metric>,<filter>" scores ("acc,none") beside `configs`/`versions`, or (0.3) bare metric keys beside `versions` and `config.model_args`',
  detect,
  parse,
};
