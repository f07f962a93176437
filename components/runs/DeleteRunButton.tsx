"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { readApiError } from "@/components/ui/api-error";
import { dangerButtonClass } from "@/components/ui/primitives";
import { authorizedFetch, needsWriteToken, WriteTokenPrompt } from "@/components/ui/write-token";

export function DeleteRunButton({ id, name }: { id: string; name: string }) {
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const [askToken, setAskToken] = useState(false);

  async function remove(confirmed = false) {
    if (!confirmed && !window.confirm(`Delete the run "${name}"? This cannot be undone.`)) return;
    setBusy(true);
    setAskToken(false);
    const response = await authorizedFetch(`/api/runs/${encodeURIComponent(id)}`, { method: "DELETE" }).catch(
      () => null,
    );
    setBusy(false);
    if (response?.status !== 204) {
      const error = await readApiError(response);
      if (needsWriteToken(error)) setAskToken(true);
      else setMessage(error.message);
      return;
    }
    router.push("/");
    router.refresh();
  }

  return (
    <>
      <button
        type="button"
        className={dangerButtonClass}
        onClick={() => void remove()}
        disabled={busy}
        data-testid="delete-run"
      >
        {busy ? "Deleting…" : "Delete"}
      </button>
      {message ? <span className="text-sm text-red-700 dark:text-red-400">{message}</span> : null}
      {/* The deletion was confirmed already: saving the token retries it without asking again. */}
      {askToken ? <WriteTokenPrompt onSaved={() => void remove(true)} /> : null}
    </>
  );
}
