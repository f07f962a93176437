"use client";

/**
 * The compare page's controls. Everything they change goes into the URL, so the address is the whole view:
 * copying it (the button does) and opening it elsewhere shows the same comparison.
 */
import { useRouter } from "next/navigation";
import { useState } from "react";
import { buttonClass, inputClass, labelClass } from "@/components/ui/primitives";

export interface RunOption {
  id: string;
  name: string;
}

function compareHref(runIds: string[], baselineId: string | null): string {
  const params = new URLSearchParams();
  params.set("runs", runIds.join(","));
  if (baselineId && runIds.includes(baselineId) && runIds[0] !== baselineId) params.set("baseline", baselineId);
  // Commas read better in a shared link than %2C.
  return `/compare?${params.toString().replace(/%2C/g, ",")}`;
}

export function CopyLinkButton() {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  async function copy() {
    try {
      await navigator.clipboard.writeText(window.location.href);
      setState("copied");
    } catch {
      setState("failed");
    }
    window.setTimeout(() => setState("idle"), 2500);
  }
  return (
    <button type="button" className={buttonClass} onClick={copy} data-testid="copy-link">
      {state === "copied" ? "Link copied" : state === "failed" ? "Copy failed: use the address bar" : "Copy link"}
    </button>
  );
}

export function BaselinePicker({ runs, runIds, baselineId }: { runs: RunOption[]; runIds: string[]; baselineId: string }) {
  const router = useRouter();
  return (
    <div className="min-w-[16rem]">
      <label htmlFor="baseline" className={labelClass}>
        Baseline
      </label>
      <select
        id="baseline"
        className={inputClass}
        value={baselineId}
        onChange={(event) => router.push(compareHref(runIds, event.target.value))}
        data-testid="baseline-select"
      >
        {runs.map((run) => (
          <option key={run.id} value={run.id}>
            {run.name}
          </option>
        ))}
      </select>
    </div>
  );
}

export function AddRunPicker({ candidates, runIds, baselineId }: { candidates: RunOption[]; runIds: string[]; baselineId: string | null }) {
  const router = useRouter();
  const available = candidates.filter((run) => !runIds.includes(run.id));
  if (available.length === 0) return null;
  return (
    <div className="min-w-[16rem]">
      <label htmlFor="add-run" className={labelClass}>
        Add a run
      </label>
      <select
        id="add-run"
        className={inputClass}
        value=""
        onChange={(event) => {
          if (event.target.value) router.push(compareHref([...runIds, event.target.value], baselineId));
        }}
        data-testid="add-run"
      >
        <option value="">Choose from recent runs…</option>
        {available.map((run) => (
          <option key={run.id} value={run.id}>
            {run.name}
          </option>
        ))}
      </select>
    </div>
  );
}

export function RemoveRunButton({ runIds, runId, baselineId }: { runIds: string[]; runId: string; baselineId: string }) {
  const router = useRouter();
  const rest = runIds.filter((id) => id !== runId);
  return (
    <button
      type="button"
      className="text-xs text-zinc-500 hover:text-red-700 hover:underline dark:text-zinc-400 dark:hover:text-red-400"
      onClick={() => router.push(rest.length > 0 ? compareHref(rest, baselineId === runId ? null : baselineId) : "/compare")}
      aria-label="Remove from comparison"
    >
      remove
    </button>
  );
}
