/**
 * The accuracy parsers on real results files of lm-evaluation-harness and lighteval (tests/fixtures/accuracy, each
 * folder's SOURCE.txt says where they come from). The expected figures are copied from the files by hand.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, test } from "vitest";
import { type AccuracyScore, AccuracyScoreSchema } from "@/lib/document/schema";
import { ACCURACY_PARSERS, detectAccuracyFormat } from "@/lib/formats/accuracy";
import type { AccuracyFormatId, AccuracyImport } from "@/lib/formats/accuracy-types";
import { decodeAsText, decodeText } from "@/lib/formats/decode";
import { lightevalParser } from "@/lib/formats/lighteval";
import { lmEvalParser } from "@/lib/formats/lm-eval";
import { FORMAT_PARSERS } from "@/lib/formats/registry";
import { FormatError, type SourceFile } from "@/lib/formats/types";
import { FIXTURES_DIR, fixtureFiles, loadFixture, readFixtureJson } from "./formats/fixtures";

const LM_EVAL_03 = "accuracy/lm-eval/v0.3_nous_gpt4all_Nereus-7B.json";
const LM_EVAL_GSM8K = "accuracy/lm-eval/v0.4.2-dev_gsm8k_Meta-Llama-3-8B-Instruct.json";
const LM_EVAL_GROUPS = "accuracy/lm-eval/v0.4.2-dev_truthfulqa_PowerBot-8B.json";
const LM_EVAL_LEADERBOARD = "accuracy/lm-eval/v0.4.6-dev_leaderboard_Llama-3.1-8B-Instruct.json";
const LM_EVAL_0492 = "accuracy/lm-eval/v0.4.9.2_math_rephrased_mem-Qwen3-93M.json";
const LIGHTEVAL_MATH = "accuracy/lighteval/git-ed08481_math_500_OpenRS-GRPO.json";
const LIGHTEVAL_LCB = "accuracy/lighteval/git-d3da6b9_lcb-codegeneration_Llama-3.1-8B-Instruct.json";
const LIGHTEVAL_0130 = "accuracy/lighteval/v0.13.0_anli-squad_dummy-model.json";

const FORMAT_OF: Record<string, AccuracyFormatId> = {
  [LM_EVAL_03]: "lm-eval",
  [LM_EVAL_GSM8K]: "lm-eval",
  [LM_EVAL_GROUPS]: "lm-eval",
  [LM_EVAL_LEADERBOARD]: "lm-eval",
  [LM_EVAL_0492]: "lm-eval",
  [LIGHTEVAL_MATH]: "lighteval",
  [LIGHTEVAL_LCB]: "lighteval",
  [LIGHTEVAL_0130]: "lighteval",
};

const isDocumentation = (file: string) => file.endsWith("SOURCE.txt") || file.endsWith(".md");
const accuracyFiles = fixtureFiles("accuracy").filter((file) => !isDocumentation(file));

function parsed(file: string): AccuracyImport {
  const source = loadFixture(file);
  const parser = detectAccuracyFormat(source);
  if (!parser) throw new Error(`${file} is not recognized`);
  return parser.parse(source);
}

/** The one score of a task, metric and filter; fails the test when there is none. */
function scoreOf(result: AccuracyImport, task: string, metric: string, filter?: string): AccuracyScore {
  const found = result.scores.filter(
    (score) => score.task === task && score.metric === metric && score.filter === filter,
  );
  expect(found, `${task} ${metric} ${filter ?? ""}`).toHaveLength(1);
  return found[0]!;
}

/** A real fixture, changed by `change`, as an upload would decode it. */
function edited(file: string, change: (data: Record<string, unknown>) => void): SourceFile {
  const data = structuredClone(readFixtureJson(file)) as Record<string, unknown>;
  change(data);
  return { name: path.basename(file), kind: "json", data, bytes: 0 };
}

function formatError(run: () => unknown): FormatError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(FormatError);
    return error as FormatError;
  }
  throw new Error("expected a FormatError");
}

/** `data.a.b.c`, creating nothing: the fixtures' nesting is known. */
function at(data: unknown, ...keys: string[]): Record<string, unknown> {
  let current = data;
  for (const key of keys) current = (current as Record<string, unknown>)[key];
  return current as Record<string, unknown>;
}

describe("accuracy fixtures", () => {
  it("has files of both evaluators", () => {
    expect(accuracyFiles.sort()).toEqual(Object.keys(FORMAT_OF).sort());
  });

  test.each(accuracyFiles)("%s is claimed by exactly its own parser", (file) => {
    const source = loadFixture(file);
    const claimed = ACCURACY_PARSERS.filter((parser) => parser.detect(source)).map((parser) => parser.id);
    expect(claimed).toEqual([FORMAT_OF[file]]);
    expect(detectAccuracyFormat(source)?.id).toBe(FORMAT_OF[file]);
  });

  test.each(accuracyFiles)("%s is claimed by no benchmark parser, decoded or as text", (file) => {
    const bytes = fs.readFileSync(path.join(FIXTURES_DIR, file));
    const decoded = loadFixture(file);
    const text = decodeAsText(file, bytes);
    for (const parser of FORMAT_PARSERS) {
      expect(parser.detect(decoded), parser.id).toBe(false);
      if (text) expect(parser.detect(text), parser.id).toBe(false);
    }
  });

  test.each(accuracyFiles)("%s: every score validates with AccuracyScoreSchema, and none is there twice", (file) => {
    const result = parsed(file);
    expect(result.format).toBe(FORMAT_OF[file]);
    expect(result.file).toBe(file);
    expect(result.scores.length).toBeGreaterThan(0);
    for (const score of result.scores) {
      expect(AccuracyScoreSchema.parse(score)).toEqual(score);
      expect(score.evaluator).toBe(FORMAT_OF[file]);
    }
    const keys = result.scores.map((score) => JSON.stringify([score.task, score.metric, score.filter]));
    expect(new Set(keys).size).toBe(keys.length);
  });
});

describe("detection claims no other fixture", () => {
  const others = fs
    .readdirSync(FIXTURES_DIR, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && entry.name !== "accuracy")
    .flatMap((entry) => fixtureFiles(entry.name))
    .filter((file) => !isDocumentation(file));

  it("walks the benchmark tools' fixtures", () => {
    expect(others.length).toBeGreaterThan(50);
  });

  test.each(others)("%s", (file) => {
    const bytes = fs.readFileSync(path.join(FIXTURES_DIR, file));
    const sources: SourceFile[] = [];
    if (file.endsWith(".json")) {
      try {
        sources.push({ name: file, kind: "json", data: JSON.parse(bytes.toString("utf8")), bytes: bytes.length });
      } catch {
        // Bare NaN or Infinity, which JSON.parse refuses: the decoder below reads those.
      }
    }
    try {
      sources.push(loadFixture(file));
    } catch {
      // Not a JSON, JSON lines, YAML or CSV file: nothing an accuracy parser reads.
    }
    const text = decodeAsText(file, bytes);
    if (text) sources.push(text);
    for (const source of sources) {
      for (const parser of ACCURACY_PARSERS) expect(parser.detect(source), `${parser.id} (${source.kind})`).toBe(false);
    }
  });

  it("never throws on odd data", () => {
    const odd: unknown[] = [
      null,
      [],
      "text",
      3,
      {},
      { results: null },
      { results: [] },
      { config_general: {}, results: 1 },
    ];
    for (const data of odd) {
      for (const parser of ACCURACY_PARSERS) {
        expect(parser.detect({ name: "odd.json", kind: "json", data, bytes: 0 })).toBe(false);
      }
    }
  });
});

describe("lm-evaluation-harness", () => {
  it("reads gsm8k's two filters, its few-shot count, direction and generation settings (0.4.2 from git)", () => {
    const result = parsed(LM_EVAL_GSM8K);
    expect(result.scores).toHaveLength(2);
    const strict = scoreOf(result, "gsm8k", "exact_match", "strict-match");
    expect(strict.value).toBe(0.7558756633813495);
    expect(strict.stderr).toBe(0.011832404674077592);
    expect(strict.num_fewshot).toBe(5);
    // No n-samples map yet in this version, and no --limit.
    expect(strict.samples).toBeUndefined();
    expect(strict.limit).toBeUndefined();
    // From configs.gsm8k.metric_list: the file has no higher_is_better map.
    expect(strict.higher_is_better).toBe(true);
    expect(strict.generation).toEqual({
      until: '["Question:","</s>","<|im_end|>"]',
      do_sample: false,
      temperature: 0,
    });
    const flexible = scoreOf(result, "gsm8k", "exact_match", "flexible-extract");
    expect(flexible.value).toBe(0.7528430629264594);
    expect(flexible.stderr).toBe(0.011881764043717087);
    // The model from model_args (no model_name in 0.4.2), the date from unix seconds, no harness version stated.
    expect(result.model).toBe("meta-llama/Meta-Llama-3-8B-Instruct");
    expect(result.measured_at).toBe("2024-04-19T11:16:59.727Z");
    expect(strict.evaluator_version).toBeUndefined();
    expect(result.warnings).toEqual([]);
  });

  it("keeps a group's row once though the file states it under results and groups", () => {
    const result = parsed(LM_EVAL_GROUPS);
    // truthfulqa (the group: 13 metrics) + truthfulqa_gen (12) + truthfulqa_mc1 (1) + truthfulqa_mc2 (1).
    expect(result.scores).toHaveLength(27);
    const group = scoreOf(result, "truthfulqa", "acc", "none");
    expect(group.value).toBe(0.38163353323031396);
    expect(group.stderr).toBe(0.010899696145449092);
    expect(group.samples).toBeUndefined();
    const mc2 = scoreOf(result, "truthfulqa_mc2", "acc", "none");
    expect(mc2.value).toBe(0.4511495634006524);
    expect(mc2.stderr).toBe(0.014563672410367922);
    expect(mc2.samples).toBe(817);
    expect(mc2.num_fewshot).toBe(0);
    // BLEU is stated on 0–100, not as a fraction: kept as the file says.
    const bleu = scoreOf(result, "truthfulqa_gen", "bleu_max", "none");
    expect(bleu.value).toBe(25.68466406530852);
    expect(bleu.higher_is_better).toBe(true);
    expect(bleu.generation).toEqual({ until: '["\\n\\n"]', do_sample: false });
    expect(result.model).toBe("saucam/PowerBot-8B");
    expect(result.measured_at).toBe("2024-05-09T18:46:47.263Z");
    // The rows `groups` repeats are no duplicates to warn about.
    expect(result.warnings).toEqual([]);
  });

  it("reads the leaderboard tasks, with an N/A standard error left out and said (0.4.6 from git)", () => {
    const result = parsed(LM_EVAL_LEADERBOARD);
    expect(result.scores).toHaveLength(44);
    // Groups without an aggregate of their own state no score.
    expect(result.scores.some((score) => score.task === "leaderboard_bbh")).toBe(false);
    const strict = scoreOf(result, "leaderboard_ifeval", "prompt_level_strict_acc", "none");
    expect(strict.value).toBe(0.4048059149722736);
    expect(strict.stderr).toBe(0.021123012121053563);
    expect(strict.samples).toBe(541);
    expect(strict.num_fewshot).toBe(0);
    expect(strict.higher_is_better).toBe(true);
    expect(strict.generation).toEqual({ until: "[]", do_sample: false, temperature: 0, max_gen_toks: 1280 });
    const instStrict = scoreOf(result, "leaderboard_ifeval", "inst_level_strict_acc", "none");
    expect(instStrict.value).toBe(0.5587529976019184);
    expect(instStrict).not.toHaveProperty("stderr");
    const algebra = scoreOf(result, "leaderboard_math_algebra_hard", "exact_match", "none");
    expect(algebra.value).toBe(0.31596091205211724);
    expect(algebra.stderr).toBe(0.02657641677230517);
    expect(algebra.num_fewshot).toBe(4);
    expect(algebra.samples).toBe(307);
    const hellaswag = scoreOf(result, "hellaswag", "acc_norm", "none");
    expect(hellaswag.value).toBe(0.7929695279824737);
    expect(hellaswag.samples).toBe(10042);
    expect(scoreOf(result, "leaderboard_mmlu_pro", "acc", "none").num_fewshot).toBe(5);
    expect(result.model).toBe("meta-llama/Llama-3.1-8B-Instruct");
    expect(result.measured_at).toBe("2025-01-25T05:46:20.814Z");
    expect(result.warnings).toEqual([
      'No standard error for 2 scores (the file states "N/A"): leaderboard_ifeval inst_level_strict_acc (none), leaderboard_ifeval inst_level_loose_acc (none).',
    ]);
  });

  it("takes the harness version from lm_eval_version (0.4.9.2)", () => {
    const result = parsed(LM_EVAL_0492);
    expect(result.scores).toHaveLength(2);
    const rephrased = scoreOf(result, "math_rephrased_full", "exact_match", "none");
    expect(rephrased.value).toBe(0.0004);
    expect(rephrased.stderr).toBe(0.0002828144211304471);
    expect(rephrased.samples).toBe(5000);
    expect(rephrased.num_fewshot).toBe(0);
    expect(rephrased.evaluator_version).toBe("0.4.9.2");
    expect(rephrased.generation).toEqual({
      until: '["Problem:","\\n\\n"]',
      do_sample: false,
      temperature: 0,
      max_gen_toks: 512,
    });
    const perturbed = scoreOf(result, "math_perturbed_full", "exact_match", "none");
    expect(perturbed.value).toBe(0);
    expect(perturbed.stderr).toBe(0);
    expect(result.model).toBe("RylanSchaeffer/mem_Qwen3-93M_minerva_math_rep_0_sbst_1.0000_epch_1_ot_1");
    expect(result.measured_at).toBe("2026-01-21T02:59:43.859Z");
  });

  it("reads a 0.3 file: bare metric keys, no filter, the run's one few-shot count", () => {
    const result = parsed(LM_EVAL_03);
    // arc_challenge 2, arc_easy 2, boolq 1, hellaswag 2, openbookqa 2, piqa 2, winogrande 1.
    expect(result.scores).toHaveLength(12);
    const arc = scoreOf(result, "arc_challenge", "acc_norm");
    expect(arc.value).toBe(0.5836177474402731);
    expect(arc.stderr).toBe(0.014405618279436176);
    expect(arc.num_fewshot).toBe(0);
    expect(arc).not.toHaveProperty("filter");
    expect(scoreOf(result, "winogrande", "acc").value).toBe(0.7292817679558011);
    expect(result.model).toBe("saucam/Nereus-7B");
    expect(result.measured_at).toBeUndefined();
    expect(result.warnings).toEqual([]);
  });

  it("names the model from model_args given as an object, or by model= for an API model", () => {
    const asObject = edited(LM_EVAL_0492, (data) => {
      delete data.model_name;
      at(data, "config").model_args = { pretrained: "Qwen/Qwen3-8B", dtype: "bfloat16" };
    });
    expect(lmEvalParser.parse(asObject).model).toBe("Qwen/Qwen3-8B");
    const api = edited(LM_EVAL_GSM8K, (data) => {
      at(data, "config").model_args = "model=Qwen/Qwen3-8B,base_url=http://127.0.0.1:8000/v1/completions";
    });
    expect(lmEvalParser.parse(api).model).toBe("Qwen/Qwen3-8B");
  });

  it("takes the limit from config.limit", () => {
    const limited = edited(LM_EVAL_GSM8K, (data) => {
      at(data, "config").limit = 250;
    });
    expect(lmEvalParser.parse(limited).scores.every((score) => score.limit === 250)).toBe(true);
  });

  it("skips a score whose value is NaN, and says so", () => {
    const text = fs
      .readFileSync(path.join(FIXTURES_DIR, LM_EVAL_GSM8K), "utf8")
      .replace('"exact_match,flexible-extract": 0.7528430629264594', '"exact_match,flexible-extract": NaN');
    const result = lmEvalParser.parse(decodeText("gsm8k.json", text));
    expect(result.scores.map((score) => score.filter)).toEqual(["strict-match"]);
    expect(result.warnings).toEqual([
      "Skipped 1 score whose value the file states as NaN: gsm8k exact_match (flexible-extract).",
    ]);
  });

  it("drops generation settings the schema refuses, with a warning, and keeps the score", () => {
    const bell = edited(LM_EVAL_GSM8K, (data) => {
      at(data, "configs", "gsm8k", "generation_kwargs").stop_text = "\u0007";
    });
    const result = lmEvalParser.parse(bell);
    expect(result.scores).toHaveLength(2);
    expect(result.scores[0]).not.toHaveProperty("generation");
    expect(result.warnings[0]).toContain("gsm8k exact_match (strict-match): its generation settings are not kept");
  });

  it("refuses a score that is a string, naming its field", () => {
    const broken = edited(LM_EVAL_GSM8K, (data) => {
      at(data, "results", "gsm8k")["exact_match,strict-match"] = "0.7558756633813495";
    });
    expect(lmEvalParser.detect(broken)).toBe(true);
    const error = formatError(() => lmEvalParser.parse(broken));
    expect(error.path).toBe("results.gsm8k.exact_match,strict-match");
    expect(error.message).toContain('should be a number, but it is "0.7558756633813495"');
  });

  it("refuses a negative standard error, naming its field", () => {
    const broken = edited(LM_EVAL_LEADERBOARD, (data) => {
      at(data, "results", "hellaswag")["acc_stderr,none"] = -0.004906779523192663;
    });
    expect(formatError(() => lmEvalParser.parse(broken)).path).toBe("results.hellaswag.acc_stderr,none");
  });

  it("refuses results that are not an object, and a task that is not one", () => {
    const notAnObject = edited(LM_EVAL_GSM8K, (data) => {
      data.results = ["gsm8k"];
    });
    expect(lmEvalParser.detect(notAnObject)).toBe(false);
    const error = formatError(() => lmEvalParser.parse(notAnObject));
    expect(error.path).toBe("results");
    expect(error.message).toContain("results should be an object of tasks, but it is an array");
    const task = edited(LM_EVAL_GROUPS, (data) => {
      at(data, "groups").truthfulqa = 0.38163353323031396;
    });
    expect(formatError(() => lmEvalParser.parse(task)).path).toBe("groups.truthfulqa");
  });

  it("refuses a file whose tasks state no metric", () => {
    const empty = edited(LM_EVAL_GSM8K, (data) => {
      data.results = { gsm8k: { alias: "gsm8k" } };
    });
    expect(formatError(() => lmEvalParser.parse(empty)).path).toBe("results");
  });
});

describe("lighteval", () => {
  it("reads a custom suite task of open-r1 (git ed08481, before 0.8), skipping the run's `all` average", () => {
    const result = parsed(LIGHTEVAL_MATH);
    expect(result.scores).toHaveLength(1);
    const score = scoreOf(result, "custom|math_500", "extractive_match");
    expect(score.value).toBe(0.838);
    expect(score.stderr).toBe(0.016494123566423505);
    expect(score.num_fewshot).toBe(0);
    expect(score.samples).toBe(500);
    expect(score.higher_is_better).toBe(true);
    // lighteval_sha is "?", max_samples null, and no generation parameters are logged in this version.
    expect(score.evaluator_version).toBeUndefined();
    expect(score.limit).toBeUndefined();
    expect(score.generation).toBeUndefined();
    expect(result.model).toBe("quyanh/OpenRS-GRPO");
    expect(result.measured_at).toBeUndefined();
    expect(result.warnings).toEqual([]);
  });

  it("reads the generation parameters of config_general (git d3da6b9, before 0.10)", () => {
    const result = parsed(LIGHTEVAL_LCB);
    expect(result.scores).toHaveLength(1);
    const score = scoreOf(result, "extended|lcb:codegeneration", "codegen_pass@1:16");
    expect(score.value).toBe(0.09748134328358209);
    expect(score.stderr).toBe(0.01443701801112539);
    expect(score.samples).toBe(268);
    expect(score.num_fewshot).toBe(0);
    expect(score.generation).toEqual({ max_new_tokens: 32768, temperature: 0.6, top_p: 0.95 });
    expect(result.model).toBe("meta-llama/Llama-3.1-8B-Instruct");
  });

  it("reads 0.13's keys without a suite, and its model_config", () => {
    const result = parsed(LIGHTEVAL_0130);
    expect(result.scores.map((score) => [score.task, score.metric])).toEqual([
      ["squad_v2", "em"],
      ["anli:r1", "acc"],
    ]);
    const em = scoreOf(result, "squad_v2", "em");
    expect(em.value).toBe(0);
    expect(em.stderr).toBe(0);
    expect(em.num_fewshot).toBe(0);
    // effective_num_docs is -1 (not counted) and max_samples 2.
    expect(em.samples).toBeUndefined();
    expect(em.limit).toBe(2);
    expect(em.generation).toEqual({ temperature: 0 });
    expect(result.model).toBe("eee-smoke/dummy-model");
  });

  it("keeps the few-shot count in the name of a task stated with two counts", () => {
    const twice = edited(LIGHTEVAL_MATH, (data) => {
      at(data, "results")["custom|math_500|5"] = { extractive_match: 0.85, extractive_match_stderr: 0.016 };
    });
    const result = lightevalParser.parse(twice);
    expect(result.scores.map((score) => [score.task, score.num_fewshot])).toEqual([
      ["custom|math_500|0", 0],
      ["custom|math_500|5", 5],
    ]);
  });

  it("skips a NaN score and leaves out a NaN standard error, saying both", () => {
    const text = fs
      .readFileSync(path.join(FIXTURES_DIR, LIGHTEVAL_0130), "utf8")
      .replace('"em": 0.0,', '"em": NaN,')
      .replace('"acc_stderr": 0.0\n    },\n    "all"', '"acc_stderr": NaN\n    },\n    "all"');
    const result = lightevalParser.parse(decodeText("results.json", text));
    expect(result.scores.map((score) => score.task)).toEqual(["anli:r1"]);
    expect(result.scores[0]).not.toHaveProperty("stderr");
    expect(result.warnings).toEqual([
      "Skipped 1 score whose value the file states as NaN: squad_v2 em.",
      "No standard error for 1 score (the file states NaN): anli:r1 acc.",
    ]);
  });

  it("refuses a score that is a string, and results that are not an object, naming the field", () => {
    const text = edited(LIGHTEVAL_MATH, (data) => {
      at(data, "results", "custom|math_500|0").extractive_match = "0.838";
    });
    expect(lightevalParser.detect(text)).toBe(true);
    expect(formatError(() => lightevalParser.parse(text)).path).toBe("results.custom|math_500|0.extractive_match");
    const list = edited(LIGHTEVAL_MATH, (data) => {
      data.results = [];
    });
    expect(formatError(() => lightevalParser.parse(list)).path).toBe("results");
    const task = edited(LIGHTEVAL_MATH, (data) => {
      at(data, "results")["custom|math_500|0"] = 0.838;
    });
    expect(formatError(() => lightevalParser.parse(task)).path).toBe("results.custom|math_500|0");
  });
});
