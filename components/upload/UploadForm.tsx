"use client";

/**
 * Upload: pick or drop a file, fill the context it lacks, preview what the server parsed (a dry run of the
 * same endpoint that stores it), then save and land on the run page. The form keeps everything on errors.
 */
import { useRouter } from "next/navigation";
import { useRef, useState, type DragEvent, type ReactNode } from "react";
import { ErrorMessage } from "@/components/ui/ErrorMessage";
import { readApiError, type ApiErrorView } from "@/components/ui/api-error";
import { buttonClass, inputClass, labelClass, primaryButtonClass, tableClass, tdClass, thClass } from "@/components/ui/primitives";
import { formatFlag } from "@/lib/runs/flags";
import { formatLoadLevel, formatNumber } from "@/lib/format";
import type { Headline } from "@/lib/runs/derived";
import type { RunDocument } from "@/lib/runs/normalize";

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

interface Preview extends Headline {
  document: RunDocument;
}

function Field({
  name,
  label,
  hint,
  fields,
  setField,
  errors,
  placeholder,
  children,
}: {
  name: FieldName;
  label: string;
  hint?: string;
  fields: Fields;
  setField: (name: FieldName, value: string) => void;
  errors: Partial<Record<FieldName, string>>;
  placeholder?: string | undefined;
  children?: ReactNode;
}) {
  const error = errors[name];
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
          value={fields[name]}
          placeholder={placeholder}
          onChange={(event) => setField(name, event.target.value)}
          aria-invalid={error ? true : undefined}
        />
      )}
      {error ? (
        <p className="mt-1 text-xs text-red-700 dark:text-red-400" data-testid={`field-error-${name}`}>
          {error}
        </p>
      ) : hint ? (
        <p className="mt-1 text-xs text-zinc-500 dark:text-zinc-400">{hint}</p>
      ) : null}
    </div>
  );
}

export function UploadForm() {
  const router = useRouter();
  const inputRef = useRef<HTMLInputElement>(null);
  const [file, setFile] = useState<File | null>(null);
  const [fields, setFields] = useState<Fields>(EMPTY_FIELDS);
  const [preview, setPreview] = useState<Preview | null>(null);
  const [error, setError] = useState<ApiErrorView | null>(null);
  const [busy, setBusy] = useState<"preview" | "save" | null>(null);
  const [dragging, setDragging] = useState(false);

  const fieldErrors: Partial<Record<FieldName, string>> = {};
  for (const issue of error?.issues ?? []) {
    const field = fieldOfPath(issue.path);
    if (field && !fieldErrors[field]) fieldErrors[field] = issue.message;
  }

  function setField(name: FieldName, value: string) {
    setFields((current) => ({ ...current, [name]: value }));
  }

  function formData(target: File): FormData {
    const data = new FormData();
    data.set("file", target);
    for (const [name, value] of Object.entries(fields)) if (value.trim()) data.set(name, value);
    return data;
  }

  async function send(target: File, mode: "preview" | "save") {
    setBusy(mode);
    setError(null);
    const response = await fetch(mode === "preview" ? "/api/runs?dry_run=1" : "/api/runs", {
      method: "POST",
      body: formData(target),
    }).catch(() => null);
    if (!response || !response.ok) {
      setError(await readApiError(response));
      if (mode === "preview") setPreview(null);
      setBusy(null);
      return;
    }
    const body = (await response.json()) as Preview | { id: string; url: string };
    if (mode === "preview") {
      setPreview(body as Preview);
      setBusy(null);
      return;
    }
    router.push((body as { url: string }).url);
  }

  function choose(next: File | null | undefined) {
    if (!next) return;
    setFile(next);
    setPreview(null);
    void send(next, "preview");
  }

  function onDrop(event: DragEvent<HTMLDivElement>) {
    event.preventDefault();
    setDragging(false);
    choose(event.dataTransfer.files[0]);
  }

  const doc = preview?.document;
  const missing = doc
    ? [
        !doc.hardware?.gpu && !fields.gpu ? "GPU" : null,
        !doc.hardware?.gpu_count && !fields.gpu_count ? "GPU count" : null,
        !doc.engine_version && !fields.engine_version ? "engine version" : null,
        !doc.command && !fields.command ? "launch command" : null,
      ].filter((item): item is string => item !== null)
    : [];

  return (
    <div className="grid grid-cols-1 gap-6 lg:grid-cols-[minmax(0,1fr)_minmax(0,1.2fr)]">
      <div className="space-y-4">
        <div
          onDragOver={(event) => {
            event.preventDefault();
            setDragging(true);
          }}
          onDragLeave={() => setDragging(false)}
          onDrop={onDrop}
          className={`flex flex-col items-center justify-center rounded-lg border-2 border-dashed p-8 text-center text-sm ${
            dragging ? "border-blue-500 bg-blue-50 dark:bg-blue-950/30" : "border-zinc-300 dark:border-zinc-700"
          }`}
          data-testid="drop-zone"
        >
          <p className="font-medium">{file ? file.name : "Drop a results file here"}</p>
          <p className="mt-1 text-zinc-500 dark:text-zinc-400">
            {file ? `${formatNumber(file.size / 1000)} kB` : "or"}
          </p>
          <button type="button" className={`${buttonClass} mt-3`} onClick={() => inputRef.current?.click()}>
            {file ? "Choose another file" : "Choose a file"}
          </button>
          <input
            ref={inputRef}
            type="file"
            accept=".json,application/json"
            className="sr-only"
            data-testid="file-input"
            onChange={(event) => choose(event.target.files?.[0])}
          />
        </div>

        <form
          className="space-y-3"
          onSubmit={(event) => {
            event.preventDefault();
            if (file) void send(file, "save");
          }}
        >
          <p className="text-sm text-zinc-600 dark:text-zinc-400">
            Context the file lacks. Filled fields override the file; empty ones keep what it says.
          </p>
          <Field name="name" label="Name" fields={fields} setField={setField} errors={fieldErrors} placeholder={doc?.name} />
          <div className="grid grid-cols-2 gap-3">
            <Field name="engine" label="Engine" fields={fields} setField={setField} errors={fieldErrors} placeholder={doc?.engine ?? "vllm, sglang…"} />
            <Field name="engine_version" label="Engine version" fields={fields} setField={setField} errors={fieldErrors} placeholder={doc?.engine_version} />
          </div>
          <Field name="model" label="Model" fields={fields} setField={setField} errors={fieldErrors} placeholder={doc?.model} />
          <div className="grid grid-cols-[minmax(0,2fr)_minmax(0,1fr)] gap-3">
            <Field name="gpu" label="GPU" fields={fields} setField={setField} errors={fieldErrors} placeholder={doc?.hardware?.gpu ?? "e.g. H100 80GB"} />
            <Field
              name="gpu_count"
              label="GPU count"
              fields={fields}
              setField={setField}
              errors={fieldErrors}
              placeholder={doc?.hardware?.gpu_count !== undefined ? String(doc.hardware.gpu_count) : "8"}
            />
          </div>
          <Field name="command" label="Launch command" hint="Parsed into flags, so runs can be diffed flag by flag." fields={fields} setField={setField} errors={fieldErrors}>
            <textarea
              id="field-command"
              name="command"
              rows={3}
              className={`${inputClass} font-mono text-xs ${fieldErrors.command ? "border-red-500" : ""}`}
              value={fields.command}
              placeholder={doc?.command ?? "vllm serve MODEL --tensor-parallel-size 8"}
              onChange={(event) => setField("command", event.target.value)}
            />
          </Field>
          <Field name="tags" label="Tags, comma-separated" fields={fields} setField={setField} errors={fieldErrors} placeholder={doc?.tags.join(", ")} />
          <Field name="notes" label="Notes" fields={fields} setField={setField} errors={fieldErrors}>
            <textarea
              id="field-notes"
              name="notes"
              rows={3}
              className={inputClass}
              value={fields.notes}
              placeholder={doc?.notes}
              onChange={(event) => setField("notes", event.target.value)}
            />
          </Field>
          {error ? <ErrorMessage error={error} /> : null}
          <div className="flex gap-2">
            <button type="button" className={buttonClass} disabled={!file || busy !== null} onClick={() => file && void send(file, "preview")}>
              {busy === "preview" ? "Checking…" : "Update preview"}
            </button>
            <button type="submit" className={primaryButtonClass} disabled={!file || busy !== null} data-testid="save-run">
              {busy === "save" ? "Saving…" : "Save run"}
            </button>
          </div>
        </form>
      </div>

      <div data-testid="preview">
        <h2 className="mb-3 text-lg font-semibold tracking-tight">Preview</h2>
        {!doc ? (
          <p className="text-sm text-zinc-500 dark:text-zinc-400">
            {file ? (busy ? "Reading the file…" : "The file could not be read; see the message on the left.") : "Choose a file to see what will be stored."}
          </p>
        ) : (
          <div className="space-y-4 text-sm">
            <div>
              <div className="text-base font-semibold" data-testid="preview-name">
                {doc.name}
              </div>
              <div className="text-zinc-600 dark:text-zinc-400">
                {doc.engine}
                {doc.engine_version ? ` ${doc.engine_version}` : ""} · {doc.model}
                {doc.hardware?.gpu ? ` · ${doc.hardware.gpu_count ? `${doc.hardware.gpu_count}× ` : ""}${doc.hardware.gpu}` : ""}
              </div>
              <div className="mt-2 flex flex-wrap gap-4">
                <span>
                  Single stream:{" "}
                  <strong data-testid="preview-single-stream">
                    {preview.single_stream ? `${formatNumber(preview.single_stream.output_tok_s)} tok/s` : "—"}
                  </strong>
                </span>
                <span>
                  Peak:{" "}
                  <strong>
                    {preview.peak ? `${formatNumber(preview.peak.output_tok_s)} tok/s @ ${formatLoadLevel(preview.peak)}` : "—"}
                  </strong>
                </span>
              </div>
            </div>
            {missing.length > 0 ? (
              <p className="rounded-md border border-amber-300 bg-amber-50 p-2 text-amber-900 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-200" data-testid="missing-context">
                The file does not say: {missing.join(", ")}. Fill them in on the left so this run can be compared fairly.
              </p>
            ) : null}
            <div className="overflow-x-auto">
              <table className={tableClass} data-testid="preview-points">
                <thead>
                  <tr>
                    <th className={thClass}>Load</th>
                    <th className={`${thClass} text-right`}>Output tok/s</th>
                    <th className={`${thClass} text-right`}>Mean TPOT ms</th>
                    <th className={`${thClass} text-right`}>Mean TTFT ms</th>
                    <th className={`${thClass} text-right`}>Completed</th>
                  </tr>
                </thead>
                <tbody>
                  {doc.results.map((point, index) => (
                    <tr key={index}>
                      <td className={tdClass}>{formatLoadLevel(point)}</td>
                      <td className={`${tdClass} num`}>{formatNumber(point.output_throughput)}</td>
                      <td className={`${tdClass} num`}>{formatNumber(point.mean_tpot_ms)}</td>
                      <td className={`${tdClass} num`}>{formatNumber(point.mean_ttft_ms)}</td>
                      <td className={`${tdClass} num`}>{formatNumber(point.completed)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {Object.keys(doc.flags).length > 0 ? (
              <div>
                <div className="mb-1 text-xs font-medium uppercase tracking-wide text-zinc-500 dark:text-zinc-400">Parsed flags</div>
                <ul className="flex flex-wrap gap-1.5 font-mono text-xs">
                  {Object.entries(doc.flags).map(([name, value]) => (
                    <li key={name} className="rounded bg-zinc-100 px-1.5 py-0.5 dark:bg-zinc-800">
                      {formatFlag(name, value)}
                    </li>
                  ))}
                </ul>
              </div>
            ) : null}
          </div>
        )}
      </div>
    </div>
  );
}
