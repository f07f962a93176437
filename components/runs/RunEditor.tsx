"use client";

/** Edit a run's name, tags and notes in place (PATCH /api/runs/{id}). */
import { useRouter } from "next/navigation";
import { useState } from "react";
import { type ApiErrorView, readApiError } from "@/components/ui/api-error";
import { ErrorMessage } from "@/components/ui/ErrorMessage";
import { buttonClass, inputClass, labelClass, primaryButtonClass } from "@/components/ui/primitives";
import { authorizedFetch, needsWriteToken, WriteTokenPrompt } from "@/components/ui/write-token";

export function RunEditor({ id, name, tags, notes }: { id: string; name: string; tags: string[]; notes: string }) {
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const [form, setForm] = useState({ name, tags: tags.join(", "), notes });
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<ApiErrorView | null>(null);

  if (!open) {
    return (
      <button type="button" className={buttonClass} onClick={() => setOpen(true)} data-testid="edit-run">
        Edit name, tags, notes
      </button>
    );
  }

  async function save() {
    setSaving(true);
    setError(null);
    const response = await authorizedFetch(`/api/runs/${encodeURIComponent(id)}`, {
      method: "PATCH",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        name: form.name,
        tags: form.tags
          .split(",")
          .map((tag) => tag.trim())
          .filter(Boolean),
        notes: form.notes,
      }),
    }).catch(() => null);
    setSaving(false);
    if (!response?.ok) {
      setError(await readApiError(response));
      return;
    }
    setOpen(false);
    router.refresh();
  }

  return (
    <div
      className="w-full max-w-2xl space-y-3 rounded-lg border border-zinc-200 p-4 dark:border-zinc-800"
      data-testid="run-editor"
    >
      <div>
        <label className={labelClass} htmlFor="edit-name">
          Name
        </label>
        <input
          id="edit-name"
          className={inputClass}
          value={form.name}
          onChange={(e) => setForm({ ...form, name: e.target.value })}
        />
      </div>
      <div>
        <label className={labelClass} htmlFor="edit-tags">
          Tags, comma-separated
        </label>
        <input
          id="edit-tags"
          className={inputClass}
          value={form.tags}
          onChange={(e) => setForm({ ...form, tags: e.target.value })}
        />
      </div>
      <div>
        <label className={labelClass} htmlFor="edit-notes">
          Notes
        </label>
        <textarea
          id="edit-notes"
          rows={4}
          className={inputClass}
          value={form.notes}
          onChange={(e) => setForm({ ...form, notes: e.target.value })}
        />
      </div>
      {needsWriteToken(error) ? (
        <WriteTokenPrompt onSaved={() => void save()} />
      ) : error ? (
        <ErrorMessage error={error} />
      ) : null}
      <div className="flex gap-2">
        <button type="button" className={primaryButtonClass} onClick={save} disabled={saving}>
          {saving ? "Saving…" : "Save"}
        </button>
        <button type="button" className={buttonClass} onClick={() => setOpen(false)} disabled={saving}>
          Cancel
        </button>
      </div>
    </div>
  );
}
