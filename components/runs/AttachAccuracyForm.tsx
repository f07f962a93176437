"use client";

/**
 * Attach an evaluator's results file (lm-eval, lighteval) to this run: the evaluation often runs after the
 * benchmark, against the same server. POST /api/runs/{id}/accuracy; the page then shows the scores.
 */
import { useRouter } from "next/navigation";
import { useRef, useState } from "react";
import { type ApiErrorView, readApiError } from "@/components/ui/api-error";
import { ErrorMessage } from "@/components/ui/ErrorMessage";
import { buttonClass, labelClass } from "@/components/ui/primitives";
import { authorizedFetch, needsWriteToken, WriteTokenPrompt } from "@/components/ui/write-token";

/**
 * `collapsed`: the run has scores already, so the form starts behind "Attach more results". Once opened it stays
 * open, through the page's refresh after attaching.
 */
export function AttachAccuracyForm({ runId, collapsed }: { runId: string; collapsed: boolean }) {
  const router = useRouter();
  const [open, setOpen] = useState(!collapsed);
  const input = useRef<HTMLInputElement>(null);
  const [files, setFiles] = useState<File[]>([]);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<ApiErrorView | null>(null);
  const [stored, setStored] = useState<number | null>(null);

  async function attach() {
    if (files.length === 0) return;
    setSaving(true);
    setError(null);
    setStored(null);
    const body = new FormData();
    for (const file of files) body.append("file", file, file.name);
    const response = await authorizedFetch(`/api/runs/${encodeURIComponent(runId)}/accuracy`, {
      method: "POST",
      body,
    }).catch(() => null);
    setSaving(false);
    if (response?.ok) {
      const run = (await response.json()) as { accuracy?: unknown[] };
      setStored(run.accuracy?.length ?? 0);
      setFiles([]);
      if (input.current) input.current.value = "";
      router.refresh();
      return;
    }
    setError(await readApiError(response));
  }

  return (
    <div className="mt-2 flex flex-wrap items-end gap-2 text-sm" data-testid="attach-accuracy">
      {open ? (
        <>
          <div>
            <label className={labelClass} htmlFor="accuracy-files">
              Accuracy results (lm-eval or lighteval results_*.json)
            </label>
            <input
              id="accuracy-files"
              ref={input}
              type="file"
              multiple
              accept=".json,application/json"
              className="block max-w-full text-sm"
              onChange={(event) => setFiles([...(event.target.files ?? [])])}
              data-testid="attach-accuracy-input"
            />
          </div>
          <button
            type="button"
            className={buttonClass}
            onClick={attach}
            disabled={saving || files.length === 0}
            data-testid="attach-accuracy-submit"
          >
            {saving ? "Attaching…" : "Attach to this run"}
          </button>
        </>
      ) : (
        <button
          type="button"
          className="cursor-pointer text-blue-700 underline underline-offset-2 dark:text-blue-400"
          aria-expanded={false}
          onClick={() => setOpen(true)}
          data-testid="attach-accuracy-open"
        >
          Attach more results
        </button>
      )}
      {stored !== null ? (
        <p
          className="w-full text-sm text-green-800 dark:text-green-400"
          role="status"
          data-testid="attach-accuracy-done"
        >
          The run holds {stored} accuracy score{stored === 1 ? "" : "s"}.
        </p>
      ) : null}
      {error ? (
        <div className="w-full">
          {needsWriteToken(error) ? <WriteTokenPrompt onSaved={attach} /> : <ErrorMessage error={error} />}
        </div>
      ) : null}
    </div>
  );
}
