"use client";

/**
 * Upload: pick or drop results files (several at once, a folder, or a .zip of one), fill the context they
 * lack, check what the server recognized (a dry run of the same endpoint that stores them), settle any
 * conflict, then save and land on the new run, or on a comparison of the new runs. The form keeps
 * everything when the server rejects it.
 */
import { useRouter } from "next/navigation";
import { type DragEvent, type ReactNode, useEffect, useRef, useState } from "react";
import { type ApiErrorView, readApiError } from "@/components/ui/api-error";
import { ErrorMessage } from "@/components/ui/ErrorMessage";
import { buttonClass, inputClass, labelClass, primaryButtonClass } from "@/components/ui/primitives";
import { authorizedFetch, needsWriteToken, WriteTokenPrompt } from "@/components/ui/write-token";
import { formatNumber } from "@/lib/format";
import type { UploadPreview } from "@/lib/runs/preview";
import { UploadPreviewPanel } from "./UploadPreview";

type FieldName = "name" | "engine" | "engine_version" | "model" | "gpu" | "gpu_count" | "command" | "tags" | "notes";
type Fields = Record<FieldName, string>;

const EMPTY_FIELDS: Fields = {
  name: "",
  engine: "",
  engine_version: "",
  model: "",
  gpu: "",
  gpu_count: "",
  command: "",
  tags: "",
  notes: "",
};

/** Which form field an error path of the document belongs to. */
function fieldOfPath(path: string): FieldName | null {
  if (path === "hardware.gpu") return "gpu";
  if (path === "hardware.gpu_count") return "gpu_count";
  const head = path.split(".")[0] ?? "";
  return head in EMPTY_FIELDS ? (head as FieldName) : null;
}

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
  error,
  placeholder,
  children,
}: {
  name: FieldName;
  label: string;
  hint?: string;
  value: string;
  onChange: (value: string) => void;
  error: string | undefined;
  placeholder?: string | undefined;
  children?: ReactNode;
}) {
  return (
    <div>
      <label htmlFor={`field-${name}`} className={labelClass}>
        {label}
      </label>
      {children ?? (
        <input
          id={`field-${name}`}
          name={name}
          className={`${inputClass} ${error ? "border-red-500" : ""}`}
          value={value}
          placeholder={placeholder}
          onChange={(event) => onChange(event.target.value)}
          aria-invalid={error ? true : undefined}
        />
      )}
      {error ? (
        <p className="mt-1 text-xs text-red-700 dark:text-red-400" data-testid={`field-error-${name}`}>
          {error}
        </p>
      ) : hint ? (
        <p className="mt-1 text-xs text-zinc-600 dark:text-zinc-400">{hint}</p>
      ) : null}
    </div>
  );
}

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
  const [preview, setPreview] = useState<UploadPreview | null>(null);
  const [error, setError] = useState<ApiErrorView | null>(null);
  const [busy, setBusy] = useState<"preview" | "save" | null>(null);
  const [dragging, setDragging] = useState(false);

  useEffect(() => {
    // The folder picker needs a non-standard attribute that React does not pass through.
    folderInput.current?.setAttribute("webkitdirectory", "");
  }, []);

  const fieldErrors: Partial<Record<FieldName, string>> = {};
  for (const issue of [...(error?.issues ?? []), ...(preview?.runs.flatMap((run) => run.issues) ?? [])]) {
    const field = fieldOfPath(issue.path);
    if (field && !fieldErrors[field]) fieldErrors[field] = issue.message;
  }

  function formData(options: SendOptions): FormData {
    const data = new FormData();
    for (const file of files) data.append("file", file, uploadName(file));
    for (const [name, value] of Object.entries(fields)) if (value.trim()) data.set(name, value);
    if (options.split) data.set("split", "1");
    if (options.repeatsOneRun) data.set("repeats", "one_run");
    if (options.picked) data.set("fragments", [...options.picked].sort((a, b) => a - b).join(","));
    return data;
  }

  async function send(
    mode: "preview" | "save",
    options: SendOptions = { split, picked, repeatsOneRun },
    target = files,
  ) {
    if (target.length === 0) return;
    setBusy(mode);
    setError(null);
    const data = formData(options);
    if (target !== files) {
      data.delete("file");
      for (const file of target) data.append("file", file, uploadName(file));
    }
    const response = await authorizedFetch(mode === "preview" ? "/api/runs?dry_run=1" : "/api/runs", {
      method: "POST",
      body: data,
    }).catch(() => null);
    if (!response?.ok) {
      setError(await readApiError(response));
      if (mode === "preview") setPreview(null);
      setBusy(null);
      return;
    }
    if (mode === "preview") {
      setPreview((await response.json()) as UploadPreview);
      setBusy(null);
      return;
    }
    const body = (await response.json()) as { url: string; runs?: { id: string }[] };
    router.push(
      body.runs && body.runs.length > 1 ? `/compare?runs=${body.runs.map((run) => run.id).join(",")}` : body.url,
    );
  }

  function choose(next: File[]) {
    if (next.length === 0) return;
    setFiles(next);
    setPreview(null);
    setPicked(null);
    setSplit(false);
    setRepeatsOneRun(false);
    void send("preview", { split: false, picked: null, repeatsOneRun: false }, next);
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

  const firstRun = preview?.runs[0]?.document;
  const placeholder = (key: string) =>
    preview && preview.runs.length === 1 && firstRun?.[key] ? String(firstRun[key]) : undefined;
  const hardware = (firstRun?.hardware ?? {}) as { gpu?: string; gpu_count?: number };
  const blocked = preview !== null && preview.conflicts.length > 0 && !split;
  const totalBytes = files.reduce((sum, file) => sum + file.size, 0);

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
              ? `${formatNumber(totalBytes / 1000)} kB`
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
            className="sr-only"
            data-testid="file-input"
            onChange={(event) => choose([...(event.target.files ?? [])])}
          />
          <input
            ref={folderInput}
            type="file"
            multiple
            className="sr-only"
            data-testid="folder-input"
            onChange={(event) => choose([...(event.target.files ?? [])])}
          />
        </div>

        <form
          className="space-y-3"
          onSubmit={(event) => {
            event.preventDefault();
            void send("save");
          }}
        >
          <p className="text-sm text-zinc-600 dark:text-zinc-400">
            Context the files lack. Filled fields override the files; empty ones keep what they say.
          </p>
          <Field
            name="name"
            label="Name"
            value={fields.name}
            onChange={(v) => setFields({ ...fields, name: v })}
            error={fieldErrors.name}
            placeholder={placeholder("name")}
          />
          <div className="grid grid-cols-2 gap-3">
            <Field
              name="engine"
              label="Engine"
              value={fields.engine}
              onChange={(v) => setFields({ ...fields, engine: v })}
              error={fieldErrors.engine}
              placeholder={placeholder("engine") ?? "vllm, sglang…"}
            />
            <Field
              name="engine_version"
              label="Engine version"
              value={fields.engine_version}
              onChange={(v) => setFields({ ...fields, engine_version: v })}
              error={fieldErrors.engine_version}
              placeholder={placeholder("engine_version")}
            />
          </div>
          <Field
            name="model"
            label="Model"
            value={fields.model}
            onChange={(v) => setFields({ ...fields, model: v })}
            error={fieldErrors.model}
            placeholder={placeholder("model")}
          />
          <div className="grid grid-cols-[minmax(0,2fr)_minmax(0,1fr)] gap-3">
            <Field
              name="gpu"
              label="GPU"
              value={fields.gpu}
              onChange={(v) => setFields({ ...fields, gpu: v })}
              error={fieldErrors.gpu}
              placeholder={hardware.gpu ?? "e.g. H100 80GB"}
            />
            <Field
              name="gpu_count"
              label="GPU count"
              value={fields.gpu_count}
              onChange={(v) => setFields({ ...fields, gpu_count: v })}
              error={fieldErrors.gpu_count}
              placeholder={hardware.gpu_count !== undefined ? String(hardware.gpu_count) : "8"}
            />
          </div>
          <Field
            name="command"
            label="Launch command"
            hint="Parsed into flags, so runs can be diffed flag by flag."
            value={fields.command}
            onChange={(v) => setFields({ ...fields, command: v })}
            error={fieldErrors.command}
          >
            <textarea
              id="field-command"
              name="command"
              rows={3}
              className={`${inputClass} font-mono text-xs ${fieldErrors.command ? "border-red-500" : ""}`}
              value={fields.command}
              placeholder={placeholder("command") ?? "vllm serve MODEL --tensor-parallel-size 8"}
              onChange={(event) => setFields({ ...fields, command: event.target.value })}
            />
          </Field>
          <Field
            name="tags"
            label="Tags, comma-separated"
            value={fields.tags}
            onChange={(v) => setFields({ ...fields, tags: v })}
            error={fieldErrors.tags}
          />
          <Field
            name="notes"
            label="Notes"
            value={fields.notes}
            onChange={(v) => setFields({ ...fields, notes: v })}
            error={fieldErrors.notes}
          >
            <textarea
              id="field-notes"
              name="notes"
              rows={3}
              className={inputClass}
              value={fields.notes}
              onChange={(event) => setFields({ ...fields, notes: event.target.value })}
            />
          </Field>
          {needsWriteToken(error) ? (
            <WriteTokenPrompt onSaved={() => void send("save")} />
          ) : error ? (
            <ErrorMessage error={error} />
          ) : null}
          {blocked ? (
            <p className="text-sm text-amber-800 dark:text-amber-300">
              Settle the conflict in the preview before saving.
            </p>
          ) : null}
          <div className="flex gap-2">
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
              disabled={files.length === 0 || busy !== null || blocked}
              data-testid="save-run"
            >
              {busy === "save"
                ? "Saving…"
                : preview && preview.runs.length > 1
                  ? `Save ${preview.runs.length} runs`
                  : "Save run"}
            </button>
          </div>
        </form>
      </div>

      <div data-testid="preview">
        <h2 className="mb-3 text-lg font-semibold tracking-tight">Preview</h2>
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
