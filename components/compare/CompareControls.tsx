"use client";

/**
 * The comparison's controls. Everything they change goes into the URL, so the address is the whole view:
 * copying it (the button does) and opening it elsewhere shows the same comparison.
 */
import { useRouter } from "next/navigation";
import { useState } from "react";
import { buttonClass, inputClass, labelClass } from "@/components/ui/primitives";
import { useQueryUpdate } from "./use-query-update";

export interface RunOption {
  id: string;
  name: string;
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

export function BaselinePicker({ runs, baselineId }: { runs: RunOption[]; baselineId: string }) {
  const update = useQueryUpdate();
  return (
    <div className="min-w-[16rem]">
      <label htmlFor="baseline" className={labelClass}>
        Baseline
      </label>
      <select
        id="baseline"
        className={inputClass}
        value={baselineId}
        onChange={(event) => update({ baseline: event.target.value })}
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

export function NoiseControl({ noisePct }: { noisePct: number }) {
  const update = useQueryUpdate();
  const [value, setValue] = useState(String(noisePct));
  const commit = () => {
    const number = Number(value);
    if (Number.isFinite(number) && number >= 0 && number <= 100) update({ noise: String(number) }, "replace");
    else setValue(String(noisePct));
  };
  return (
    <div className="w-32">
      <label htmlFor="noise" className={labelClass}>
        Noise ± %
      </label>
      <input
        id="noise"
        type="number"
        min={0}
        max={100}
        step={0.5}
        className={inputClass}
        value={value}
        onChange={(event) => setValue(event.target.value)}
        onBlur={commit}
        onKeyDown={(event) => {
          if (event.key === "Enter") commit();
        }}
        title="Changes smaller than this are shown as within noise"
        data-testid="noise-input"
      />
    </div>
  );
}

export function StatPicker({ stat }: { stat: string }) {
  const update = useQueryUpdate();
  return (
    <div className="w-40">
      <label htmlFor="stat" className={labelClass}>
        Latency charts show
      </label>
      <select
        id="stat"
        className={inputClass}
        value={stat}
        onChange={(event) => update({ stat: event.target.value }, "replace")}
        data-testid="stat-select"
      >
        <option value="mean">mean</option>
        <option value="median">median (p50)</option>
        <option value="p99">p99</option>
      </select>
    </div>
  );
}

export function AddRunPicker({ candidates, runIds }: { candidates: RunOption[]; runIds: string[] }) {
  const router = useRouter();
  const update = useQueryUpdate();
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
          const id = event.target.value;
          if (!id) return;
          if (runIds.length === 0) router.push(`/compare?runs=${encodeURIComponent(id)}`);
          else update({ runs: [...runIds, id].join(",") });
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

export function RemoveRunButton({
  runIds,
  runId,
  baselineId,
}: {
  runIds: string[];
  runId: string;
  baselineId: string;
}) {
  const router = useRouter();
  const update = useQueryUpdate();
  const rest = runIds.filter((id) => id !== runId);
  return (
    <button
      type="button"
      className="text-xs text-zinc-500 hover:text-red-700 hover:underline dark:text-zinc-400 dark:hover:text-red-400"
      onClick={() => {
        if (rest.length === 0) router.push("/compare");
        else
          update({
            runs: rest.join(","),
            baseline: baselineId === runId || rest[0] === baselineId ? null : baselineId,
          });
      }}
      aria-label="Remove from comparison"
    >
      remove
    </button>
  );
}
