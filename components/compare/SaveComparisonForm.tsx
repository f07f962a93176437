"use client";

/**
 * "Save comparison": a small form (title, notes) that stores the current view (POST /api/comparisons) and
 * opens the saved comparison's page, /c/<slug>.
 */
import { useRouter } from "next/navigation";
import { type FormEvent, useState } from "react";
import { type ApiErrorView, readApiError } from "@/components/ui/api-error";
import { ErrorMessage } from "@/components/ui/ErrorMessage";
import { buttonClass, inputClass, labelClass, primaryButtonClass } from "@/components/ui/primitives";
import { authorizedFetch, needsWriteToken, WriteTokenPrompt } from "@/components/ui/write-token";
import type { SaveFields } from "@/lib/comparisons/view";

export function SaveComparisonForm({ fields, defaultTitle }: { fields: SaveFields; defaultTitle: string }) {
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const [title, setTitle] = useState(defaultTitle);
  const [notes, setNotes] = useState("");
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<ApiErrorView | null>(null);

  function show() {
    // The view may have changed since the page loaded (baseline, hidden series): start from its current title.
    setTitle(defaultTitle);
    setError(null);
    setOpen(true);
  }

  async function save(event?: FormEvent<HTMLFormElement>) {
    event?.preventDefault();
    setSaving(true);
    setError(null);
    const body = {
      ...fields,
      ...(title.trim() ? { title: title.trim() } : {}),
      ...(notes.trim() ? { notes } : {}),
    };
    const response = await authorizedFetch("/api/comparisons", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    }).catch(() => null);
    if (response?.status !== 201) {
      setSaving(false);
      setError(await readApiError(response));
      return;
    }
    const { url } = (await response.json()) as { slug: string; url: string };
    router.push(url);
  }

  return (
    <div className="relative">
      <button
        type="button"
        className={buttonClass}
        onClick={() => (open ? setOpen(false) : show())}
        aria-expanded={open}
        aria-controls="save-comparison-form"
        data-testid="save-comparison"
      >
        Save comparison
      </button>
      {open ? (
        <form
          id="save-comparison-form"
          onSubmit={save}
          className="absolute right-0 z-20 mt-2 w-[min(28rem,calc(100vw-2rem))] space-y-3 rounded-lg border border-zinc-200 bg-white p-4 shadow-lg dark:border-zinc-700 dark:bg-zinc-900"
          aria-label="Save comparison"
        >
          <p className="text-xs text-zinc-600 dark:text-zinc-400">
            Keeps these {fields.runs.length} runs, the baseline and the view under a short link. The figures stay live:
            they are computed from the runs whenever the link is opened.
          </p>
          <div>
            <label htmlFor="save-title" className={labelClass}>
              Title
            </label>
            <input
              id="save-title"
              className={inputClass}
              value={title}
              onChange={(event) => setTitle(event.target.value)}
              data-testid="save-title"
            />
          </div>
          <div>
            <label htmlFor="save-notes" className={labelClass}>
              Notes (optional)
            </label>
            <textarea
              id="save-notes"
              rows={4}
              className={inputClass}
              value={notes}
              placeholder="What this comparison shows, how the runs were made…"
              onChange={(event) => setNotes(event.target.value)}
              data-testid="save-notes"
            />
          </div>
          {needsWriteToken(error) ? (
            <WriteTokenPrompt onSaved={() => void save()} />
          ) : error ? (
            <ErrorMessage error={error} />
          ) : null}
          <div className="flex gap-2">
            <button type="submit" className={primaryButtonClass} disabled={saving} data-testid="save-submit">
              {saving ? "Saving…" : "Save and open"}
            </button>
            <button type="button" className={buttonClass} onClick={() => setOpen(false)} disabled={saving}>
              Cancel
            </button>
          </div>
        </form>
      ) : null}
    </div>
  );
}
