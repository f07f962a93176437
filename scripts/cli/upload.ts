/**
 * `servebench upload FILE… --url URL [context]`: POST results files to /api/runs as one multipart upload and
 * print the new run's link. Exits 1 with the server's message when the upload is rejected, 2 on bad usage,
 * and, with --fail-on-regression, 3 when the server judged an uploaded run a regression of its series.
 */
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import {
  PREVIEW_ANSWER_MAX_BYTES,
  requestServer,
  ServerRequestError,
  serverBase,
  TimeoutOptionError,
  timeoutMsFrom,
  UPLOAD_ANSWER_MAX_BYTES,
  UPLOAD_TIMEOUT_MS,
} from "./server-request";
import { terminalSafe } from "./server-text";
import { refusedSummary, type UploadedRun, uploadSummary, verdictFromServer } from "./summary";

export const UPLOAD_USAGE = `servebench upload FILE_OR_FOLDER... [options]

  --url URL             the servebench server (default: $SERVEBENCH_URL or http://localhost:3000)
  --token TOKEN         write token, sent as Authorization: Bearer TOKEN (default: $SERVEBENCH_TOKEN); needed
                        when the server sets SERVEBENCH_WRITE_TOKEN (--dry-run works without it)
  --name TEXT           run name
  --engine NAME         engine that served the benchmark (vllm, sglang, tensorrt-llm, llama.cpp…); without it,
                        what the files or the --command program say, else stored as "unknown"
  --engine-version V    its version
  --model NAME          model served
  --gpu NAME            GPU model
  --gpu-count N         number of GPUs
  --command TEXT        the server's launch command (parsed into flags)
  --tag TAG             a tag; repeat for more
  --notes TEXT          free text
  --series NAME         the series the run belongs to (a trend line judged for regressions); without it, the
                        series of its configuration
  --series-override     store the run in --series although its model, GPU, GPU count or workload differs from
                        the series' runs (refused otherwise); it is marked and never judged with the series
  --git-commit SHA      the commit measured (runs of a series at one commit are repeats of one point)
  --git-branch NAME     the branch (default: the CI's, from $GITHUB_REF_NAME, $CI_COMMIT_REF_NAME…)
  --ci-url URL          a link to the CI job (default: the CI's, from $GITHUB_RUN_ID, $CI_JOB_URL…)
  --fail-on-regression  exit 3 when an uploaded run is judged a regression of its series
  --summary FILE        write the markdown summary to FILE instead of stdout (it is printed with --series or
                        --fail-on-regression, and appended to $GITHUB_STEP_SUMMARY when that is set); when the
                        upload is rejected, it says why
  --split               store files that disagree (several configurations, repeated load levels) as separate runs
  --fragments LIST      keep only these fragments (numbers from --dry-run), e.g. 0,2
  --level FILE=LEVEL    the load level of a file that states none (an AIPerf/GenAI-Perf CSV outside its tool's
                        artifact folder): FILE=concurrency:8 or FILE=rate:2.5 (requests/s); FILE as named on the
                        command line or under a named folder; repeat for more files; a file stating its own level
                        is refused
  --eval FILE           an evaluator's accuracy results (lm-eval results_*.json, lighteval results): its scores
                        are stored with the run the upload makes; repeat for more files
  --run ID              attach the --eval files to the stored run ID instead of uploading a run (no FILE needed)
  --dry-run             show what would be stored, store nothing; exits 1, saying why, when the upload would be
                        rejected
  --timeout SECONDS     how long the upload may take, from connecting to the server's last byte (default: 120)`;

const OPTIONS = {
  url: { type: "string" },
  token: { type: "string" },
  name: { type: "string" },
  engine: { type: "string" },
  "engine-version": { type: "string" },
  model: { type: "string" },
  gpu: { type: "string" },
  "gpu-count": { type: "string" },
  command: { type: "string" },
  tag: { type: "string", multiple: true },
  notes: { type: "string" },
  series: { type: "string" },
  "series-override": { type: "boolean" },
  "git-commit": { type: "string" },
  "git-branch": { type: "string" },
  "ci-url": { type: "string" },
  "fail-on-regression": { type: "boolean" },
  summary: { type: "string" },
  split: { type: "boolean" },
  fragments: { type: "string" },
  level: { type: "string", multiple: true },
  eval: { type: "string", multiple: true },
  run: { type: "string" },
  "dry-run": { type: "boolean" },
  timeout: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

/**
 * A `--level FILE=concurrency:8` as the upload's `level` field: FILE is the path as typed (or the name the upload
 * gives the file, `folder/sub/file.csv`), sent under the upload's name; anything else goes as typed, for the server
 * to refuse naming it. A bare `concurrency:8` with one file is that file's.
 */
export function levelField(text: string, files: readonly { path: string; name: string }[]): string {
  const split = text.lastIndexOf("=");
  if (split === -1) return files.length === 1 ? `${files[0]!.name}=${text}` : text;
  const file = text.slice(0, split);
  const level = text.slice(split + 1);
  const found =
    files.find((candidate) => path.resolve(candidate.path) === path.resolve(file)) ??
    files.find((candidate) => candidate.name === file);
  return `${found ? found.name : file}=${level}`;
}

/** Files named on the command line; a folder stands for every file under it (hidden files skipped). */
export function collectFiles(paths: readonly string[]): { path: string; name: string }[] {
  const out: { path: string; name: string }[] = [];
  for (const given of paths) {
    const stat = fs.statSync(given, { throwIfNoEntry: false });
    if (!stat) throw new UsageError(`no such file or folder: ${given}`);
    if (stat.isFile()) {
      out.push({ path: given, name: path.basename(given) });
      continue;
    }
    const base = path.basename(path.resolve(given));
    const walk = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
        if (entry.name.startsWith(".")) continue;
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (entry.isFile()) out.push({ path: full, name: path.join(base, path.relative(given, full)) });
      }
    };
    walk(given);
  }
  return out;
}

export class UsageError extends Error {}

/** The exit code of an upload whose run was judged a regression, with --fail-on-regression. */
export const EXIT_REGRESSION = 3;

/**
 * The branch and job link of the CI the upload runs in (GitHub Actions, GitLab CI, Buildkite). The commit is
 * not taken from there: a nightly job's own repository often stays at one commit while the engine it
 * measures changes, and runs at one commit are judged as repeats of one point. Pass --git-commit for that.
 */
export function ciContext(env: NodeJS.ProcessEnv): { git_branch?: string; ci_url?: string } {
  const out: { git_branch?: string; ci_url?: string } = {};
  const branch = env.GITHUB_HEAD_REF || env.GITHUB_REF_NAME || env.CI_COMMIT_REF_NAME || env.BUILDKITE_BRANCH;
  if (branch) out.git_branch = branch;
  if (env.GITHUB_SERVER_URL && env.GITHUB_REPOSITORY && env.GITHUB_RUN_ID) {
    out.ci_url = `${env.GITHUB_SERVER_URL}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}`;
  } else if (env.CI_JOB_URL) out.ci_url = env.CI_JOB_URL;
  else if (env.BUILDKITE_BUILD_URL) out.ci_url = env.BUILDKITE_BUILD_URL;
  return out;
}

interface ErrorBody {
  error?: { code?: string; message?: string; issues?: { path: string; message: string }[] };
}

interface PreviewBody {
  runs: {
    document: { name?: string; source_format?: string; results?: unknown[] };
    valid: boolean;
    issues: { path: string; message: string }[];
    missing: string[];
    engine_from?: string | null;
  }[];
  fragments: { index: number; file: string; part: string; format_label: string; levels: string[] }[];
  conflicts: string[];
  split?: boolean;
}

/** The one line that says a run was stored with its engine unknown, and how to name it. */
function engineNote(runName: string): string {
  return `servebench upload: note: ${runName ? `"${runName}": ` : ""}no file or launch command says which engine served the run; stored as engine "unknown" (pass --engine NAME, or --command with the server's launch command)`;
}

/**
 * Why the real upload of a preview would be refused, as the server would say it (each issue with its field); empty
 * when it would be stored. Conflicts come first: the server refuses them before it looks at the runs.
 */
function previewRefusal(body: PreviewBody): { path: string; message: string }[] {
  if (body.conflicts.length > 0 && !body.split) {
    return body.conflicts.map((conflict) => ({
      path: "files",
      message: `${conflict} (pass --split to store them as separate runs)`,
    }));
  }
  return body.runs.flatMap((run, index) =>
    run.valid
      ? []
      : run.issues.map((issue) => ({
          path: issue.path,
          message: body.runs.length > 1 ? `${issue.message} (run ${index + 1} of ${body.runs.length})` : issue.message,
        })),
  );
}

// Everything printed passes through terminalSafe: most of it is the server's text (names, links, messages).
function print(line = ""): void {
  process.stdout.write(`${terminalSafe(line)}\n`);
}

function printError(line: string): void {
  process.stderr.write(`${terminalSafe(line)}\n`);
}

function printPreview(body: PreviewBody): void {
  for (const fragment of body.fragments) {
    print(
      `  [${fragment.index}] ${fragment.file}${fragment.part ? ` (${fragment.part})` : ""}: ${fragment.format_label}, ${fragment.levels.join(", ")}`,
    );
  }
  for (const conflict of body.conflicts) print(`  conflict: ${conflict}`);
  body.runs.forEach((run, index) => {
    const points = run.document.results?.length ?? 0;
    print(
      `  run ${index + 1}: ${run.document.name ?? "(unnamed)"}: ${points} point${points === 1 ? "" : "s"}${run.valid ? "" : " (not valid yet)"}`,
    );
    for (const issue of run.issues) print(`    ${issue.path}: ${issue.message}`);
    if (run.missing.length > 0) print(`    missing: ${run.missing.join(", ")}`);
  });
}

function parseUploadArgs(argv: string[]) {
  return parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
}

export async function runUpload(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parseUploadArgs>;
  try {
    parsed = parseUploadArgs(argv);
  } catch (error) {
    process.stderr.write(
      `servebench upload: ${error instanceof Error ? error.message : String(error)}\n\n${UPLOAD_USAGE}\n`,
    );
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    print(UPLOAD_USAGE);
    return 0;
  }
  const evalFiles = values.eval ?? [];
  if (values.run !== undefined) {
    if (evalFiles.length === 0 || positionals.length > 0) {
      process.stderr.write(
        `servebench upload: --run ID attaches accuracy results to a stored run: give them with --eval FILE, and no other file\n\n${UPLOAD_USAGE}\n`,
      );
      return 2;
    }
    return attachEval(values.run, evalFiles, values);
  }
  if (positionals.length === 0) {
    process.stderr.write(
      `servebench upload: name at least one results file or folder${evalFiles.length > 0 ? " (accuracy results go with the benchmark files of their run, or with --run ID onto a stored run)" : ""}\n\n${UPLOAD_USAGE}\n`,
    );
    return 2;
  }
  let files: { path: string; name: string }[];
  try {
    files = collectFiles([...positionals, ...evalFiles]);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`servebench upload: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  if (files.length === 0) {
    process.stderr.write("servebench upload: the folders hold no files\n");
    return 2;
  }
  let timeoutMs: number;
  try {
    timeoutMs = timeoutMsFrom("--timeout", values.timeout, UPLOAD_TIMEOUT_MS);
  } catch (error) {
    if (error instanceof TimeoutOptionError) {
      process.stderr.write(`servebench upload: ${error.message}\n\n${UPLOAD_USAGE}\n`);
      return 2;
    }
    throw error;
  }

  const base = serverBase(values.url);
  const ci = ciContext(process.env);
  const form = new FormData();
  for (const file of files) form.append("file", new Blob([fs.readFileSync(file.path)]), file.name);
  for (const level of values.level ?? []) form.append("level", levelField(level, files));
  const context: Record<string, string | undefined> = {
    name: values.name,
    engine: values.engine,
    engine_version: values["engine-version"],
    model: values.model,
    gpu: values.gpu,
    gpu_count: values["gpu-count"],
    command: values.command,
    tags: values.tag?.join(","),
    notes: values.notes,
    series: values.series,
    series_override: values["series-override"] ? "1" : undefined,
    git_commit: values["git-commit"],
    git_branch: values["git-branch"] ?? ci.git_branch,
    ci_url: values["ci-url"] ?? ci.ci_url,
    split: values.split ? "1" : undefined,
    fragments: values.fragments,
  };
  for (const [key, value] of Object.entries(context)) if (value !== undefined) form.set(key, value);

  const wantsSummary = values.series !== undefined || values["fail-on-regression"] || values.summary !== undefined;
  // A refused upload still leaves its summary (the file, the CI's step summary), saying why: the job's page
  // should not be blank where the result would have been.
  const writeRefusal = (reason: string, issues: readonly { path: string; message: string }[]) => {
    if (values["dry-run"]) return;
    const summary = refusedSummary(reason, issues);
    if (values.summary !== undefined && values.summary !== "-") fs.writeFileSync(values.summary, terminalSafe(summary));
    else if (wantsSummary) print(`\n${summary}`);
    const stepSummary = process.env.GITHUB_STEP_SUMMARY;
    if (stepSummary) fs.appendFileSync(stepSummary, `${terminalSafe(summary)}\n`);
  };

  const endpoint = `${base}/api/runs${values["dry-run"] ? "?dry_run=1" : ""}`;
  let response: Awaited<ReturnType<typeof requestServer>>;
  try {
    const token = values.token ?? process.env.SERVEBENCH_TOKEN;
    const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
    response = await requestServer(
      endpoint,
      { method: "POST", body: form, headers },
      {
        base,
        timeoutMs,
        timeoutOption: "--timeout",
        maxAnswerBytes: values["dry-run"] ? PREVIEW_ANSWER_MAX_BYTES : UPLOAD_ANSWER_MAX_BYTES,
      },
    );
  } catch (error) {
    if (error instanceof ServerRequestError) {
      printError(`servebench upload: ${error.message}`);
      writeRefusal(`Nothing was stored: ${error.message}`, []);
      return 1;
    }
    throw error;
  }
  const { text } = response;
  let body: unknown;
  try {
    body = JSON.parse(text) as unknown;
  } catch {
    const why = `${base} answered ${response.status} with something that is not servebench's JSON`;
    printError(`servebench upload: ${why}`);
    writeRefusal(`Nothing was stored: ${why}.`, []);
    return 1;
  }
  if (!response.ok) {
    const error = (body as ErrorBody).error;
    printError(`servebench upload: rejected (${response.status} ${error?.code ?? "error"}): ${error?.message ?? text}`);
    // Issues the message already quotes are not printed twice.
    for (const issue of error?.issues ?? []) {
      if (error?.message?.includes(issue.message)) continue;
      printError(`  ${issue.path || "(document)"}: ${issue.message}`);
    }
    writeRefusal(
      `Rejected by ${base} (${response.status} ${error?.code ?? "error"}): ${error?.message ?? text}`,
      error?.issues ?? [],
    );
    return 1;
  }
  if (values["dry-run"]) {
    const preview = body as PreviewBody;
    const refusal = previewRefusal(preview);
    print(
      `Dry run: nothing stored. ${base} ${refusal.length > 0 ? "would reject the upload; it holds" : "would store"}:`,
    );
    printPreview(preview);
    if (refusal.length > 0) {
      printError("servebench upload: the upload would be rejected:");
      for (const issue of refusal) printError(`  ${issue.path || "(document)"}: ${issue.message}`);
      return 1;
    }
    preview.runs.forEach((run) => {
      if (run.engine_from === "not_stated") printError(engineNote(run.document.name ?? ""));
    });
    return 0;
  }
  const created = body as UploadedRun & { runs?: UploadedRun[] };
  const runs: UploadedRun[] = (
    created.runs ?? [
      {
        id: created.id,
        url: created.url,
        name: "",
        ...(created.engine ? { engine: created.engine } : {}),
        ...(created.series ? { series: created.series } : {}),
      },
    ]
  ).map((run) => (run.series ? { ...run, series: verdictFromServer(run.series) } : run));
  for (const run of runs) print(`${base}${run.url}${run.name ? `  ${run.name}` : ""}`);
  if (runs.length > 1) print(`compare: ${base}/compare?runs=${runs.map((run) => run.id).join(",")}`);
  for (const run of runs) if (run.engine === "unknown") printError(engineNote(run.name));

  const summary = uploadSummary(base, runs);
  if (wantsSummary) {
    if (values.summary !== undefined && values.summary !== "-") fs.writeFileSync(values.summary, terminalSafe(summary));
    else print(`\n${summary}`);
  }
  const stepSummary = process.env.GITHUB_STEP_SUMMARY;
  if (stepSummary && runs.some((run) => run.series)) fs.appendFileSync(stepSummary, `${terminalSafe(summary)}\n`);

  const regressions = runs.filter((run) => run.series?.verdict === "regression");
  if (regressions.length > 0) {
    printError(
      `servebench upload: ${regressions.length} run${regressions.length === 1 ? "" : "s"} judged a regression of ${[...new Set(regressions.map((run) => run.series!.series.name))].join(", ")}`,
    );
    if (values["fail-on-regression"]) return EXIT_REGRESSION;
  }
  return 0;
}

/** `--run ID --eval FILE…`: POST the files to /api/runs/ID/accuracy and say what the run holds now. */
async function attachEval(
  runId: string,
  evalFiles: readonly string[],
  values: { url?: string | undefined; token?: string | undefined; timeout?: string | undefined },
): Promise<number> {
  let files: { path: string; name: string }[];
  let timeoutMs: number;
  try {
    files = collectFiles(evalFiles);
    timeoutMs = timeoutMsFrom("--timeout", values.timeout, UPLOAD_TIMEOUT_MS);
  } catch (error) {
    if (error instanceof UsageError || error instanceof TimeoutOptionError) {
      process.stderr.write(`servebench upload: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  const base = serverBase(values.url);
  const form = new FormData();
  for (const file of files) form.append("file", new Blob([fs.readFileSync(file.path)]), file.name);
  const token = values.token ?? process.env.SERVEBENCH_TOKEN;
  let response: Awaited<ReturnType<typeof requestServer>>;
  try {
    response = await requestServer(
      `${base}/api/runs/${encodeURIComponent(runId)}/accuracy`,
      { method: "POST", body: form, headers: token ? { Authorization: `Bearer ${token}` } : {} },
      { base, timeoutMs, timeoutOption: "--timeout", maxAnswerBytes: UPLOAD_ANSWER_MAX_BYTES },
    );
  } catch (error) {
    if (error instanceof ServerRequestError) {
      printError(`servebench upload: ${error.message}`);
      return 1;
    }
    throw error;
  }
  let body: { id?: string; name?: string; accuracy?: unknown[]; error?: ErrorBody["error"] };
  try {
    body = JSON.parse(response.text) as typeof body;
  } catch {
    printError(`servebench upload: ${base} answered ${response.status} with something that is not servebench's JSON`);
    return 1;
  }
  if (!response.ok) {
    printError(
      `servebench upload: rejected (${response.status} ${body.error?.code ?? "error"}): ${body.error?.message ?? response.text}`,
    );
    return 1;
  }
  const scores = body.accuracy?.length ?? 0;
  print(`${base}/runs/${encodeURIComponent(body.id ?? runId)}  ${body.name ?? ""}`.trimEnd());
  print(`${scores} accuracy score${scores === 1 ? "" : "s"} stored with the run`);
  return 0;
}
