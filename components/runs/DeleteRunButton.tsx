"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { dangerButtonClass } from "@/components/ui/primitives";
import { readApiError } from "@/components/ui/api-error";

export function DeleteRunButton({ id, name }: { id: string; name: string }) {
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(null);

  async function remove() {
    if (!window.confirm(`Delete the run "${name}"? This cannot be undone.`)) return;
    setBusy(true);
    const response = await fetch(`/api/runs/${encodeURIComponent(id)}`, { method: "DELETE" }).catch(() => null);
    setBusy(false);
    if (!response || response.status !== 204) {
      setMessage((await readApiError(response)).message);
      return;
    }
    router.push("/");
    router.refresh();
  }

  return (
    <>
      <button type="button" className={dangerButtonClass} onClick={remove} disabled={busy} data-testid="delete-run">
        {busy ? "Deleting…" : "Delete"}
      </button>
      {message ? <span className="text-sm text-red-700 dark:text-red-400">{message}</span> : null}
    </>
  );
}
