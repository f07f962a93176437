"use client";

/** Set an alert's status and note (PATCH /api/alerts/{id}). "Expected" restarts the series' baseline. */
import { useRouter } from "next/navigation";
import { useState } from "react";
import { type ApiErrorView, readApiError } from "@/components/ui/api-error";
import { ErrorMessage } from "@/components/ui/ErrorMessage";
import { buttonClass, inputClass } from "@/components/ui/primitives";
import { authorizedFetch, needsWriteToken, WriteTokenPrompt } from "@/components/ui/write-token";

const STATUSES = [
  { value: "open", label: "Open" },
  { value: "acknowledged", label: "Acknowledged" },
  { value: "expected", label: "Expected (new baseline)" },
] as const;

export function AlertActions({ id, status, note }: { id: string; status: string; note: string | null }) {
  const router = useRouter();
  const [form, setForm] = useState({ status, note: note ?? "" });
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<ApiErrorView | null>(null);

  async function save() {
    setSaving(true);
    setError(null);
    const response = await authorizedFetch(`/api/alerts/${encodeURIComponent(id)}`, {
      method: "PATCH",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ status: form.status, note: form.note }),
    }).catch(() => null);
    setSaving(false);
    if (response?.ok) {
      router.refresh();
      return;
    }
    setError(await readApiError(response));
  }

  return (
    <div className="flex flex-wrap items-center gap-2" data-testid="alert-actions">
      <div className="w-56">
        <select
          aria-label="Alert status"
          className={inputClass}
          value={form.status}
          onChange={(event) => setForm({ ...form, status: event.target.value })}
          data-testid="alert-status"
        >
          {STATUSES.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      </div>
      <div className="min-w-[16rem] max-w-md flex-1">
        <input
          aria-label="Note"
          className={inputClass}
          placeholder="Note (what happened, who looks at it)"
          value={form.note}
          maxLength={2000}
          onChange={(event) => setForm({ ...form, note: event.target.value })}
          data-testid="alert-note"
        />
      </div>
      <button type="button" className={buttonClass} onClick={save} disabled={saving} data-testid="alert-save">
        {saving ? "Saving…" : "Save"}
      </button>
      {error ? (
        <div className="w-full">
          {needsWriteToken(error) ? <WriteTokenPrompt onSaved={save} /> : <ErrorMessage error={error} />}
        </div>
      ) : null}
    </div>
  );
}
