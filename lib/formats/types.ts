/**
 * The contract between the upload pipeline and the per-tool parsers. A parser is a pure function from one
 * decoded file to fragments: load points with the run context the file states, each figure carrying the
 * name of the field it came from.
 */
import type { FlagValue, Hardware, ModelSize, ResultPoint, Speculative, Workload } from "@/lib/document/schema";

export type FormatId =
  | "servebench/v1"
  | "vllm-bench-serve"
  | "vllm-sweep"
  | "sglang-bench-serving"
  | "sglang-bench-one-batch-server"
  | "sglang-bench-one-batch"
  | "guidellm"
  | "aiperf"
  | "llmperf"
  | "inference-perf"
  | "trtllm-bench"
  | "llama-bench"
  | "llm-d-benchmark-report"
  | "vllm-benchmark-suite"
  | "vllm-bench-rs"
  | "genai-bench"
  | "evalscope"
  | "mlperf-inference"
  | "llm-load-test";

export type SourceKind = "json" | "jsonl" | "csv" | "yaml" | "text";

/**
 * One uploaded file, decoded once. Parsers recognize a format from `data` (its keys), never from `name`,
 * which is only for messages and ordering.
 *
 * - json: `data` is the parsed value. Bare `NaN`, `Infinity` and `-Infinity` (which Python's json writes and
 *   JSON.parse rejects) arrive as the strings "NaN", "Infinity", "-Infinity".
 * - jsonl: `data` is the array of the parsed lines (blank lines skipped), with the same NaN/Infinity rule.
 * - csv: `data` is the array of rows (`string[][]`), the header row included and blank lines skipped; every
 *   cell is a string, trimmed. Some tools write several sections, each with its own header row.
 * - yaml: `data` is the parsed document (an object).
 * - text: `data` is the file's text, for tools whose output is a printed report (llama-bench's markdown table,
 *   trtllm-bench's report). A file becomes text only when none of the kinds above decodes it, or when what they
 *   decode is claimed by no parser.
 *
 * `skippedLines` lists the lines around a JSON or JSON-lines body that are not part of it: the tool's log, captured
 * with its output (`llama-bench -o jsonl 2>&1 | tee out.jsonl`). They are reported as import warnings.
 */
export interface SourceFile {
  name: string;
  kind: SourceKind;
  data: unknown;
  /** Size of the original file in bytes. */
  bytes: number;
  skippedLines?: SkippedLine[];
  /**
   * json and jsonl: the numbers beyond ±2^53 the text states (`data` holds them rounded), paths beginning with the
   * place of their top-level value (findLargeNumbers). A run document keeps or refuses them (lib/formats/import.ts).
   */
  largeNumbers?: LargeNumber[];
  /**
   * A load level for a file that may not state its own: given by the person with the upload (`level`), or read from
   * the name of the folder the tool wrote the file into (lib/formats/aiperf-folder.ts). Only parsers of files that
   * can lack a level read it; a level the file states itself always wins.
   */
  level?: GivenLevel;
}

/** A load level from outside the file: `source` says where, and goes into the point's `sources`. */
export interface GivenLevel {
  concurrency?: number;
  request_rate?: number;
  /** "given with the upload (level)", "from the folder name concurrency_16". */
  source: string;
  /** Typed by the person, rather than read from a folder name: a file that states its own level refuses it. */
  byPerson: boolean;
}

export interface SkippedLine {
  /** 1-based line number in the file. */
  line: number;
  text: string;
}

/**
 * A number the file states that the run does not keep: its field (a path inside the file, "line 3.median_ttft",
 * "benchmarks[0].metrics.ttft.successful.percentiles.p25"), the value as stated (or, for a list or a group of
 * per-request values, a short description) and why it is not imported.
 */
export interface NotImported {
  file: string;
  field: string;
  value: number | string;
  reason: string;
}

/** What a file says about the run besides its load points. Everything is optional: most files say little. */
export interface RunContext {
  name?: string;
  engine?: string;
  engine_version?: string;
  model?: string;
  hardware?: Hardware;
  command?: string;
  flags?: Record<string, FlagValue | number>;
  env?: Record<string, string>;
  workload?: Workload;
  speculative?: Speculative;
  model_size?: ModelSize;
  server_startup_s?: number;
  measured_at?: string;
  /** The commit, branch and CI job a run states (servebench's own llm-d export carries them). */
  git_commit?: string;
  git_branch?: string;
  ci_url?: string;
  tags?: string[];
  notes?: string;
  metadata?: Record<string, string | number | boolean>;
}

/** Load points from one file (or one part of it, such as one line of a JSONL file) that share a context. */
export interface Fragment {
  format: FormatId;
  /** The file it came from, as uploaded (a path inside a folder or zip). */
  file: string;
  /** Which part of the file, when it has several: "line 3", "benchmark 2 (constant 4 req/s)". Empty otherwise. */
  part: string;
  context: RunContext;
  /** Points with `sources` set: field → source field name. */
  points: ResultPoint[];
  /** Things a person should know: figures that were NaN, a level whose requests all failed. */
  warnings: string[];
  /**
   * Where the fragment's record sits in the file ("line 3", "[2]", "benchmarks[1]"), so that the field names in its
   * points' `sources` (relative to that record) can be matched with the file's paths. Empty or absent: the file root.
   */
  root?: string;
  /**
   * Paths (relative to `root`) of stated numbers the parser kept outside the points (in the context or metadata),
   * or deliberately read and dropped with a reason (`notImported`). A path ending in ".*" covers everything under it.
   */
  used?: string[];
  /** Stated numbers the parser read and chose not to keep, with the reason; the pipeline adds the ones nobody read. */
  notImported?: NotImported[];
  /**
   * The file's stated numbers outside every fragment's record that nobody imported: one list shared (the same
   * array) by all the fragments of the file, so a run reports it once however many of them it holds.
   */
  fileNotImported?: NotImported[];
  /**
   * Names the fragment's one load point for a supplement from another file (inference-perf writes a stage's
   * server-side figures to a file of their own, which has no load level).
   */
  pairKey?: string;
  /** Figures for the point of the fragment with the same `pairKey`: this fragment has no points of its own. */
  supplement?: Supplement;
  /**
   * The fragment repeats, rounded, what another file of the same run states (AIPerf's CSV beside its JSON summary):
   * it is dropped, with `why`, when a file in the same folder gives a fragment of `format` with points.
   */
  copyOf?: { format: FormatId; why: string };
}

/** Figures of a load point that another file holds (see `Fragment.pairKey`): server-side figures, say. */
export interface Supplement {
  pairKey: string;
  /** Merged into the point; a field the point already has keeps its value. */
  figures: Partial<ResultPoint>;
  /** Field → where it came from, as in `ResultPoint.sources`. */
  sources: Record<string, string>;
  /** Requests the server counted over the point's window, to check against the client's count. */
  serverRequests?: number;
  /**
   * Why the figures are skipped when no fragment of the upload has their `pairKey`, naming the file they belong
   * with; by default, server-side figures with no client-side file beside them.
   */
  missingPartner?: string;
}

export interface FormatParser {
  id: FormatId;
  /** The tool and output, as a person would name it: "vLLM bench serve --save-result". */
  label: string;
  /** The keys that identify the format, in words, for docs and for the "not recognized" message. */
  signature: string;
  /**
   * Why a stated number at this path (relative to its fragment's root) is not imported, for the run's import report.
   * Returns undefined for the default reason: no servebench field holds it.
   */
  notImportedReason?(path: string): string | undefined;
  /** True when the decoded file has this format's signature keys. Must not throw. */
  detect(file: SourceFile): boolean;
  /**
   * Fragments of the file. Throws FormatError when the file is recognized but broken, naming the field.
   * Returns [] for a file of the format that holds no load points of its own (a sweep's aggregate that
   * repeats the per-point files, say); the pipeline reports such files as skipped.
   */
  parse(file: SourceFile): Fragment[];
}

/** A recognized file that cannot be imported: `path` names the field inside the file that broke it. */
export class FormatError extends Error {
  readonly path: string;

  constructor(path: string, message: string) {
    super(message);
    this.name = "FormatError";
    this.path = path;
  }
}

/**
 * A recognized file that cannot become a point because it states no load level and none was given: the upload
 * lists it as skipped, saying so, and the upload form asks for its level.
 */
export class NeedsLevelError extends FormatError {
  constructor(message: string) {
    super("", message);
    this.name = "NeedsLevelError";
  }
}

/**
 * A recognized file with no results in it at all (every request of the run failed): skipped when other files of the
 * upload have points, and the upload's refusal (`no_results`) when nothing else does.
 */
export class NoResultsError extends FormatError {
  constructor(message: string) {
    super("", message);
    this.name = "NoResultsError";
  }
}

/** A number of a JSON text whose digits JSON.parse does not keep, and where it is. */
export interface LargeNumber {
  /**
   * Where the number is: first the place of its top-level value among those of the text (0 for a JSON file, the
   * line's among the values of a JSON-lines file), then the keys and indexes down to it.
   */
  path: (string | number)[];
  /** The number as the text writes it. */
  literal: string;
}
