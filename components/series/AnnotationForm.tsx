"use client";

/** Mark an expected change at a run (the baseline restarts there), or remove a mark. */
import { useRouter } from "next/navigation";
import { useState } from "react";
import { type ApiErrorView, readApiError } from "@/components/ui/api-error";
import { ErrorMessage } from "@/components/ui/ErrorMessage";
import { buttonClass, inputClass, labelClass } from "@/components/ui/primitives";
import { authorizedFetch, needsWriteToken, WriteTokenPrompt } from "@/components/ui/write-token";

export function AnnotationForm({ seriesId, runs }: { seriesId: string; runs: { id: string; label: string }[] }) {
  const router = useRouter();
  const [runId, setRunId] = useState(runs[runs.length - 1]?.id ?? "");
  const [note, setNote] = useState("");
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<ApiErrorView | null>(null);

  async function save() {
    setSaving(true);
    setError(null);
    const response = await authorizedFetch(`/api/series/${encodeURIComponent(seriesId)}/annotations`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ run_id: runId, note }),
    }).catch(() => null);
    setSaving(false);
    if (response?.ok) {
      setNote("");
      router.refresh();
      return;
    }
    setError(await readApiError(response));
  }

  return (
    <div className="flex flex-wrap items-end gap-2" data-testid="annotation-form">
      <div>
        <label className={labelClass} htmlFor="annotation-run">
          The baseline restarts at
        </label>
        <select
          id="annotation-run"
          className={`${inputClass} w-auto max-w-full`}
          value={runId}
          onChange={(e) => setRunId(e.target.value)}
        >
          {runs.map((run) => (
            <option key={run.id} value={run.id}>
              {run.label}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label className={labelClass} htmlFor="annotation-note">
          Why (e.g. upgraded to vLLM 0.12 on purpose)
        </label>
        <input
          id="annotation-note"
          className={`${inputClass} w-72 max-w-full`}
          value={note}
          maxLength={2000}
          onChange={(e) => setNote(e.target.value)}
        />
      </div>
      <button type="button" className={buttonClass} onClick={save} disabled={saving || !runId}>
        {saving ? "Saving…" : "Mark expected change"}
      </button>
      {error ? (
        <div className="w-full">
          {needsWriteToken(error) ? <WriteTokenPrompt onSaved={save} /> : <ErrorMessage error={error} />}
        </div>
      ) : null}
    </div>
  );
}

export function RemoveAnnotationButton({ seriesId, annotationId }: { seriesId: string; annotationId: string }) {
  const router = useRouter();
  const [error, setError] = useState<ApiErrorView | null>(null);
  async function remove() {
    const response = await authorizedFetch(
      `/api/series/${encodeURIComponent(seriesId)}/annotations/${encodeURIComponent(annotationId)}`,
      { method: "DELETE" },
    ).catch(() => null);
    if (response?.ok) router.refresh();
    else setError(await readApiError(response));
  }
  return (
    <>
      <button type="button" className="text-xs text-blue-700 hover:underline dark:text-blue-400" onClick={remove}>
        remove
      </button>
      {error ? needsWriteToken(error) ? <WriteTokenPrompt onSaved={remove} /> : <ErrorMessage error={error} /> : null}
    </>
  );
}
