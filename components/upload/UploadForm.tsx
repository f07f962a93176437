"use client";

import Link from "next/link";
/**
 * Upload: pick or drop results files (several at once, a folder, or a .zip of one), fill the context they
 * lack, check what the server recognized (a dry run of the same endpoint that stores them), settle any
 * conflict, then save and land on the new run, or on a comparison of the new runs. The form keeps
 * everything when the server rejects it. While the files go up and the server reads or stores them, a bar says
 * how far it has got (a sweep folder of a hundred files takes a while).
 */
import { useRouter } from "next/navigation";
import { type DragEvent, type ReactNode, useCallback, useEffect, useRef, useState } from "react";
import { type ApiErrorView, readApiError } from "@/components/ui/api-error";
import { ErrorMessage } from "@/components/ui/ErrorMessage";
import { startNavigationProgress } from "@/components/ui/NavigationProgress";
import { buttonClass, inputClass, labelClass, primaryButtonClass } from "@/components/ui/primitives";
import { authorizedUpload, needsWriteToken, WriteTokenPrompt } from "@/components/ui/write-token";
import type { UploadPreview } from "@/lib/ingest/preview";
import { EMPTY_FIELDS, type FieldName, type Fields, fieldOfPath, fileValueOf } from "./fields";
import { formatBytes, type UploadProgress } from "./progress";
import { UploadPreviewPanel } from "./UploadPreview";
import { progressStatus, UploadProgressBar, useProgressShown } from "./UploadProgress";

/** How long after the last keystroke the preview is asked again. */
const PREVIEW_DELAY_MS = 350;

/** A file's name for the server: its path inside a picked folder when there is one. */
function uploadName(file: File): string {
  return file.webkitRelativePath || file.name;
}

function Field({
  name,
  label,
  hint,
  value,
  onChange,
  onBlur,
  error,
  placeholder,
  required = false,
  origin = null,
  children,
}: {
  name: FieldName;
  label: string;
  hint?: string;
  value: string;
  onChange: (value: string) => void;
  onBlur?: () => void;
  error: string | undefined;
  /** An example, always written "e.g. …" so it never reads as a value. */
  placeholder?: string | undefined;
  /** A run cannot be stored without it (the file may still supply it). */
  required?: boolean;
  /** Where the value shown was read from when it was not typed: the file, or the launch command. */
  origin?: ValueOrigin | null;
  children?: ReactNode;
}) {
  const describedBy = error || hint ? `field-${name}-note` : undefined;
  return (
    <div>
      <label htmlFor={`field-${name}`} className={`${labelClass} flex items-center gap-1.5`}>
        <span>
          {label}
          {required ? (
            <span className="text-red-700 dark:text-red-400" aria-hidden>
              {" "}
              *
            </span>
          ) : null}
          {required ? <span className="sr-only"> (required)</span> : null}
        </span>
        {origin ? (
          <span
            className="rounded bg-blue-50 px-1.5 py-px text-[11px] font-medium text-blue-800 dark:bg-blue-950 dark:text-blue-200"
            data-testid={`from-${origin}-${name}`}
          >
            from the {origin}
          </span>
        ) : null}
      </label>
      {children ?? (
        <input
          id={`field-${name}`}
          name={name}
          className={`${inputClass} ${error ? "border-red-600 dark:border-red-500" : ""}`}
          value={value}
          placeholder={placeholder}
          onChange={(event) => onChange(event.target.value)}
          onBlur={onBlur}
          aria-invalid={error ? true : undefined}
          aria-describedby={describedBy}
          aria-required={required || undefined}
        />
      )}
      {error ? (
        <p id={describedBy} className="mt-1 text-xs text-red-700 dark:text-red-400" data-testid={`field-error-${name}`}>
          {error}
        </p>
      ) : hint ? (
        <p id={describedBy} className="mt-1 text-xs text-zinc-600 dark:text-zinc-400">
          {hint}
        </p>
      ) : null}
    </div>
  );
}

type ValueOrigin = "file" | "command";

interface SendOptions {
  split: boolean;
  picked: Set<number> | null;
  repeatsOneRun: boolean;
}

export function UploadForm() {
  const router = useRouter();
  const fileInput = useRef<HTMLInputElement>(null);
  const folderInput = useRef<HTMLInputElement>(null);
  const [files, setFiles] = useState<File[]>([]);
  const [fields, setFields] = useState<Fields>(EMPTY_FIELDS);
  const [split, setSplit] = useState(false);
  const [repeatsOneRun, setRepeatsOneRun] = useState(false);
  const [picked, setPicked] = useState<Set<number> | null>(null);
  /** Files the preview said state no load level, and the level typed for each ("concurrency:8", "rate:2.5"). */
  const [levelFiles, setLevelFiles] = useState<string[]>([]);
  const [levels, setLevels] = useState<Record<string, string>>({});
  const [preview, setPreview] = useState<UploadPreview | null>(null);
  const [error, setError] = useState<ApiErrorView | null>(null);
  const [busy, setBusy] = useState<"preview" | "save" | null>(null);
  // What the last refused request was, so saving a write token retries that: the preview needs the token too.
  const [refusedMode, setRefusedMode] = useState<"preview" | "save">("save");
  const [dragging, setDragging] = useState(false);
  /** Fields the person has typed in; the others show what the file says, and are not sent. */
  const [touched, setTouched] = useState<ReadonlySet<FieldName>>(new Set());
  /** An edit the preview has not caught up with yet. */
  const [stale, setStale] = useState(false);
  const [stored, setStored] = useState<{ url: string; name: string | null }[] | null>(null);
  // Only the answer to the latest request is shown: an older one arriving late is dropped.
  const latest = useRef(0);
  // A save in flight is not superseded by a preview asked after it (a field's delayed re-check): its answer is
  // where the page goes next.
  const saving = useRef(false);
  /** How far the latest request has got; null when none is on its way. */
  const [progress, setProgress] = useState<UploadProgress | null>(null);
  const progressShown = useProgressShown(progress);
  /** Aborts the preview on its way, when a newer request makes its answer of no use (its bytes need not go up). */
  const previewInFlight = useRef<AbortController | null>(null);

  useEffect(() => {
    // The folder picker needs a non-standard attribute that React does not pass through.
    folderInput.current?.setAttribute("webkitdirectory", "");
  }, []);
  // Leaving the page stops a preview's bytes going up (a save is left to finish: the run is stored all the same).
  useEffect(() => () => previewInFlight.current?.abort(), []);

  // Each problem is said once: beside its field when it has one (the preview and the error box leave it out).
  const fieldErrors: Partial<Record<FieldName, string>> = {};
  for (const issue of [...(error?.issues ?? []), ...(preview?.runs.flatMap((run) => run.issues) ?? [])]) {
    const field = fieldOfPath(issue.path);
    if (field && !fieldErrors[field]) fieldErrors[field] = issue.message;
  }
  const unplacedErrorIssues = (error?.issues ?? []).filter((issue) => fieldOfPath(issue.path) === null);

  function formData(options: SendOptions): FormData {
    const data = new FormData();
    for (const file of files) data.append("file", file, uploadName(file));
    for (const [name, value] of Object.entries(fields)) {
      if (touched.has(name as FieldName) && value.trim()) data.set(name, value);
    }
    if (options.split) data.set("split", "1");
    if (options.repeatsOneRun) data.set("repeats", "one_run");
    if (options.picked) data.set("fragments", [...options.picked].sort((a, b) => a - b).join(","));
    for (const [name, value] of Object.entries(levels))
      if (value.trim()) data.append("level", `${name}=${value.trim()}`);
    return data;
  }

  async function send(
    mode: "preview" | "save",
    options: SendOptions = { split, picked, repeatsOneRun },
    target = files,
    place: UploadProgress["place"] = mode === "save" ? "save" : "preview",
  ) {
    if (target.length === 0) return;
    if (mode === "preview" && saving.current) return;
    if (mode === "save") saving.current = true;
    const request = ++latest.current;
    // A preview still on its way is answered for nothing now: stop sending its bytes.
    previewInFlight.current?.abort();
    const controller = new AbortController();
    previewInFlight.current = mode === "preview" ? controller : null;
    setBusy(mode);
    setError(null);
    setStored(null);
    const data = formData(options);
    if (target !== files) {
      data.delete("file");
      for (const file of target) data.append("file", file, uploadName(file));
    }
    const bytes = target.reduce((sum, file) => sum + file.size, 0);
    setProgress({
      request,
      mode,
      place,
      files: target.length,
      bytes,
      runs: Math.max(1, preview?.runs.length ?? 1),
      stage: { phase: "sending", fraction: null },
    });
    const stageOf = (stage: UploadProgress["stage"]) => {
      if (request !== latest.current) return;
      setProgress((current) => (current?.request === request ? { ...current, stage } : current));
    };
    const response = await authorizedUpload(mode === "preview" ? "/api/runs?dry_run=1" : "/api/runs", {
      method: "POST",
      body: data,
      signal: controller.signal,
      onUploadProgress: (loaded, total) =>
        stageOf({ phase: "sending", fraction: total ? Math.min(1, loaded / total) : null }),
      onUploaded: () => stageOf({ phase: "server" }),
    }).catch(() => null);
    if (previewInFlight.current === controller) previewInFlight.current = null;
    if (mode === "save" && !response?.ok) saving.current = false;
    if (request !== latest.current) return;
    if (!response?.ok) {
      const problem = await readApiError(response);
      if (request !== latest.current) return;
      setRefusedMode(mode);
      setError(problem);
      if (mode === "preview") setPreview(null);
      setBusy(null);
      setProgress(null);
      setStale(false);
      return;
    }
    if (mode === "preview") {
      const answer = (await response.json()) as UploadPreview;
      if (request !== latest.current) return;
      setPreview(answer);
      const lacking = answer.skipped.filter((skipped) => skipped.needs_level).map((skipped) => skipped.file);
      setLevelFiles((current) => [...current, ...lacking.filter((file) => !current.includes(file))]);
      setBusy(null);
      setProgress(null);
      setStale(false);
      return;
    }
    const body = (await response.json()) as {
      url: string;
      duplicate?: boolean;
      runs?: { id: string; url: string; name: string; duplicate: boolean }[];
    };
    // Content stored before is not stored again: say so, and link to what is there, instead of landing on an
    // old run as if it were new.
    if (body.duplicate) {
      saving.current = false;
      setStored(
        body.runs ? body.runs.map((run) => ({ url: run.url, name: run.name })) : [{ url: body.url, name: null }],
      );
      setBusy(null);
      setProgress(null);
      return;
    }
    stageOf({ phase: "opening", runs: body.runs?.length ?? 1 });
    startNavigationProgress();
    router.push(
      body.runs && body.runs.length > 1 ? `/compare?runs=${body.runs.map((run) => run.id).join(",")}` : body.url,
    );
  }

  function choose(next: File[]) {
    if (next.length === 0) return;
    setStale(false);
    setFiles(next);
    setPreview(null);
    setPicked(null);
    setSplit(false);
    setRepeatsOneRun(false);
    setLevelFiles([]);
    setLevels({});
    void send("preview", { split: false, picked: null, repeatsOneRun: false }, next, "chosen");
  }

  function onDrop(event: DragEvent<HTMLDivElement>) {
    event.preventDefault();
    setDragging(false);
    choose([...event.dataTransfer.files]);
  }

  function togglePick(index: number) {
    const all = new Set(preview?.fragments.map((fragment) => fragment.index) ?? []);
    const next = new Set(picked ?? all);
    if (next.has(index)) next.delete(index);
    else next.add(index);
    const value = next.size === all.size ? null : next;
    setPicked(value);
    void send("preview", { split, picked: value, repeatsOneRun });
  }

  function changeSplit(value: boolean) {
    setSplit(value);
    void send("preview", { split: value, picked, repeatsOneRun });
  }

  function changeRepeats(value: boolean) {
    setRepeatsOneRun(value);
    void send("preview", { split, picked, repeatsOneRun: value });
  }

  // The preview follows the form: asked again shortly after each edit, so what it says (and whether the run
  // can be saved) is never behind what is typed.
  const sendRef = useRef(send);
  sendRef.current = send;
  const editCount = useRef(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: an edit of a field (or its reset to the file's value) is what re-asks
  useEffect(() => {
    if (editCount.current === 0 || files.length === 0) return;
    const timer = setTimeout(() => void sendRef.current("preview"), PREVIEW_DELAY_MS);
    return () => clearTimeout(timer);
  }, [fields, touched, files, levels]);

  function editLevel(file: string, value: string) {
    editCount.current += 1;
    setStale(true);
    setLevels((current) => ({ ...current, [file]: value }));
  }

  const edit = useCallback((name: FieldName, value: string) => {
    editCount.current += 1;
    setStale(true);
    setFields((current) => ({ ...current, [name]: value }));
    setTouched((current) => (current.has(name) ? current : new Set([...current, name])));
  }, []);
  /** A field left empty goes back to what the file says. */
  const leave = useCallback(
    (name: FieldName) => {
      if (fields[name] !== "" || !touched.has(name)) return;
      editCount.current += 1;
      setStale(true);
      setTouched((current) => new Set([...current].filter((other) => other !== name)));
    },
    [fields, touched],
  );

  const singleRun = preview && preview.runs.length === 1 ? preview.runs[0]! : null;
  const single = singleRun ? singleRun.document : null;
  // An imported run's engine says where it came from; "unknown" (nothing said it) is no value to show.
  const engineFrom = singleRun?.engine_from ?? null;
  const fileValue = (name: FieldName) =>
    single && !touched.has(name) && !(name === "engine" && engineFrom === "not_stated")
      ? fileValueOf(single, name)
      : undefined;
  const originOf = (name: FieldName): ValueOrigin | null =>
    fileValue(name) === undefined ? null : name === "engine" && engineFrom === "command" ? "command" : "file";
  const shown = (name: FieldName) => (touched.has(name) ? fields[name] : (fileValue(name) ?? ""));
  const field = (name: FieldName) => ({
    name,
    value: shown(name),
    onChange: (value: string) => edit(name, value),
    onBlur: () => leave(name),
    error: fieldErrors[name],
    origin: originOf(name),
  });
  const blocked = preview !== null && preview.conflicts.length > 0 && !split;
  const invalid = preview?.runs.some((run) => !run.valid) ?? false;
  const totalBytes = files.reduce((sum, file) => sum + file.size, 0);
  const fieldLabels: Record<FieldName, string> = {
    name: "name",
    engine: "engine",
    engine_version: "engine version",
    model: "model",
    gpu: "GPU",
    gpu_count: "GPU count",
    command: "launch command",
    tags: "tags",
    notes: "notes",
  };
  const markedFields = (Object.keys(fieldErrors) as FieldName[]).map((name) => fieldLabels[name]);
  // Why Save is not available, said beside it.
  const saveBlockedBy =
    files.length === 0
      ? "Choose files first."
      : busy === "save"
        ? null
        : stale || busy === "preview"
          ? "Checking the changes…"
          : !preview
            ? "The files could not be read."
            : preview.runs.length === 0
              ? "Give the load level of the files that state none."
              : blocked
                ? "Settle the conflict in the preview first."
                : invalid
                  ? markedFields.length > 0
                    ? `Fill in or correct: ${markedFields.join(", ")}.`
                    : "The preview lists what is wrong with the run."
                  : null;

  return (
    <div className="grid grid-cols-1 gap-6 lg:grid-cols-[minmax(0,1fr)_minmax(0,1.3fr)]">
      <div className="space-y-4">
        {/* biome-ignore lint/a11y/noStaticElementInteractions: a drop target for the mouse; the file pickers inside it are the keyboard's way in */}
        <div
          onDragOver={(event) => {
            event.preventDefault();
            setDragging(true);
          }}
          onDragLeave={() => setDragging(false)}
          onDrop={onDrop}
          className={`flex flex-col items-center justify-center rounded-lg border-2 border-dashed p-6 text-center text-sm ${
            dragging ? "border-blue-500 bg-blue-50 dark:bg-blue-950/30" : "border-zinc-300 dark:border-zinc-700"
          }`}
          data-testid="drop-zone"
        >
          <p className="font-medium" data-testid="chosen-files">
            {files.length === 0
              ? "Drop results files here"
              : files.length === 1
                ? uploadName(files[0]!)
                : `${files.length} files`}
          </p>
          <p className="mt-1 text-zinc-600 dark:text-zinc-400">
            {files.length > 0
              ? formatBytes(totalBytes)
              : "servebench/v1, vLLM, SGLang, GuideLLM, AIPerf, LLMPerf, inference-perf, TensorRT-LLM, llama-bench, llm-d; several files, a folder or a .zip"}
          </p>
          <div className="mt-3 flex gap-2">
            <button type="button" className={buttonClass} onClick={() => fileInput.current?.click()}>
              Choose files
            </button>
            <button type="button" className={buttonClass} onClick={() => folderInput.current?.click()}>
              Choose a folder
            </button>
          </div>
          <input
            ref={fileInput}
            type="file"
            multiple
            // Not displayed, so never a tab stop of its own: the buttons above open it.
            className="hidden"
            tabIndex={-1}
            data-testid="file-input"
            onChange={(event) => choose([...(event.target.files ?? [])])}
          />
          <input
            ref={folderInput}
            type="file"
            multiple
            className="hidden"
            tabIndex={-1}
            data-testid="folder-input"
            onChange={(event) => choose([...(event.target.files ?? [])])}
          />
          {progress && progressShown && progress.place === "chosen" ? (
            <UploadProgressBar progress={progress} className="mt-4" />
          ) : null}
        </div>
        <span className="sr-only" role="status" data-testid="upload-progress-status">
          {progressStatus(progress, progressShown)}
        </span>

        <form
          className="space-y-3"
          onSubmit={(event) => {
            event.preventDefault();
            void send("save");
          }}
        >
          <p className="text-sm text-zinc-600 dark:text-zinc-400">
            Context the files lack. Values marked “from the file” or “from the command” were read from them; typing
            replaces them. Fields marked * are required.
          </p>
          <Field
            {...field("name")}
            origin={null}
            label="Name"
            hint={
              !touched.has("name") && typeof single?.name === "string" && single.name
                ? `Left empty, the run is named “${single.name}”.`
                : undefined
            }
          />
          <div className="grid grid-cols-2 gap-3">
            <Field
              {...field("engine")}
              label="Engine"
              placeholder="e.g. vllm, sglang"
              hint={
                engineFrom === "not_stated" && !touched.has("engine")
                  ? "Not stated by the files or the launch command: stored as “engine not stated” unless filled in."
                  : undefined
              }
            />
            <Field {...field("engine_version")} label="Engine version" placeholder="e.g. 0.11.0" />
          </div>
          <Field {...field("model")} label="Model" required placeholder="e.g. meta-llama/Llama-3.1-8B-Instruct" />
          <div className="grid grid-cols-[minmax(0,2fr)_minmax(0,1fr)] gap-3">
            <Field {...field("gpu")} label="GPU" placeholder="e.g. H100 80GB" />
            <Field {...field("gpu_count")} label="GPU count" placeholder="e.g. 8" />
          </div>
          <Field
            {...field("command")}
            label="Launch command"
            hint="Parsed into flags, so runs can be diffed flag by flag."
          >
            <textarea
              id="field-command"
              name="command"
              rows={3}
              className={`${inputClass} font-mono text-xs ${fieldErrors.command ? "border-red-600 dark:border-red-500" : ""}`}
              value={shown("command")}
              placeholder="e.g. vllm serve MODEL --tensor-parallel-size 8"
              onChange={(event) => edit("command", event.target.value)}
              onBlur={() => leave("command")}
              aria-describedby="field-command-note"
            />
          </Field>
          <Field
            {...field("tags")}
            origin={null}
            value={fields.tags}
            label="Tags, comma-separated"
            placeholder="e.g. fp8, nightly"
          />
          <Field {...field("notes")} origin={null} value={fields.notes} label="Notes">
            <textarea
              id="field-notes"
              name="notes"
              rows={3}
              className={inputClass}
              value={fields.notes}
              onChange={(event) => edit("notes", event.target.value)}
            />
          </Field>
          {needsWriteToken(error) ? (
            <WriteTokenPrompt onSaved={() => void send(refusedMode)} />
          ) : error && error.issues.length > 0 && unplacedErrorIssues.length === 0 ? (
            <p role="alert" className="text-sm text-red-700 dark:text-red-400" data-testid="api-error">
              Not saved: correct the fields marked in red.
            </p>
          ) : error ? (
            <ErrorMessage error={{ ...error, issues: unplacedErrorIssues }} />
          ) : null}
          {stored ? (
            <div
              role="status"
              className="rounded-md border border-blue-300 bg-blue-50 p-3 text-sm text-blue-900 dark:border-blue-800 dark:bg-blue-950 dark:text-blue-100"
              data-testid="already-stored"
            >
              <p className="font-medium">
                {stored.length === 1 ? "This is already stored" : "These are already stored"}: the same content was
                uploaded before, so nothing new was saved.
              </p>
              <ul className="mt-1 space-y-0.5">
                {stored.map((run) => (
                  <li key={run.url}>
                    <Link href={run.url} className="font-medium underline underline-offset-2">
                      {run.name ? `Open “${run.name}”` : "Open the stored run"}
                    </Link>
                  </li>
                ))}
              </ul>
            </div>
          ) : null}
          {progress && progressShown && progress.place === "save" ? <UploadProgressBar progress={progress} /> : null}
          <div className="flex flex-wrap items-center gap-2">
            <button
              type="button"
              className={buttonClass}
              disabled={files.length === 0 || busy !== null}
              onClick={() => void send("preview")}
            >
              {busy === "preview" ? "Checking…" : "Update preview"}
            </button>
            <button
              type="submit"
              className={primaryButtonClass}
              disabled={busy === "save" || saveBlockedBy !== null}
              aria-describedby={saveBlockedBy ? "save-blocked-by" : undefined}
              data-testid="save-run"
            >
              {busy === "save"
                ? "Saving…"
                : preview && preview.runs.length > 1
                  ? `Save ${preview.runs.length} runs`
                  : "Save run"}
            </button>
            {saveBlockedBy ? (
              <span
                id="save-blocked-by"
                className="text-sm text-zinc-700 dark:text-zinc-300"
                data-testid="save-blocked-by"
                aria-live="polite"
              >
                {saveBlockedBy}
              </span>
            ) : null}
          </div>
        </form>
      </div>

      <div data-testid="preview">
        <h2 className="mb-3 text-lg font-semibold tracking-tight">Preview</h2>
        {progress && progressShown && progress.place === "preview" ? (
          <UploadProgressBar progress={progress} className="mb-4" />
        ) : null}
        {levelFiles.length > 0 ? (
          <fieldset
            className="mb-4 space-y-2 rounded-lg border border-zinc-200 p-3 text-sm dark:border-zinc-800"
            data-testid="levels"
          >
            <legend className="px-1 font-medium">Load level of files that state none</legend>
            <p className="text-zinc-600 dark:text-zinc-400">
              These files do not say at which concurrency or request rate they were measured: type{" "}
              <code>concurrency:8</code> or <code>rate:2.5</code> (requests per second).
            </p>
            {levelFiles.map((file) => (
              <label key={file} className="block">
                <span className="block break-all text-zinc-700 dark:text-zinc-300">{file}</span>
                <input
                  type="text"
                  className="mt-1 w-full rounded-md border border-zinc-300 bg-white px-2 py-1 font-mono dark:border-zinc-700 dark:bg-zinc-900"
                  placeholder="concurrency:8"
                  aria-label={`Load level of ${file}`}
                  value={levels[file] ?? ""}
                  onChange={(event) => editLevel(file, event.target.value)}
                />
              </label>
            ))}
          </fieldset>
        ) : null}
        {!preview ? (
          <p className="text-sm text-zinc-600 dark:text-zinc-400">
            {files.length > 0
              ? busy
                ? "Reading the files…"
                : "The files could not be read; see the message on the left."
              : "Choose files to see what will be stored."}
          </p>
        ) : (
          <UploadPreviewPanel
            preview={preview}
            issuesAtFields={preview.runs.length === 1}
            picked={picked}
            onTogglePick={togglePick}
            split={split}
            onSplit={changeSplit}
            repeatsOneRun={repeatsOneRun}
            onRepeatsOneRun={changeRepeats}
          />
        )}
      </div>
    </div>
  );
}
