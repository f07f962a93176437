"use client";

/**
 * The comparison's controls. Everything they change goes into the URL, so the address is the whole view:
 * copying it (the button does) and opening it elsewhere shows the same comparison.
 */
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { buttonClass, inputClass, labelClass } from "@/components/ui/primitives";
import { useLatestQuery, useQueryUpdate } from "./use-query-update";

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

/**
 * A control's value as the person set it, until the URL catches up: the page's props still hold the old value
 * while the navigation is in flight, and a control drawn from them would jump back to it. A new value from the
 * page (its navigation arrived, or the URL changed elsewhere) replaces it.
 */
function useShownValue<T>(fromPage: T): [T, (value: T) => void] {
  const [shown, setShown] = useState(fromPage);
  useEffect(() => setShown(fromPage), [fromPage]);
  return [shown, setShown];
}

export function BaselinePicker({ runs, baselineId }: { runs: RunOption[]; baselineId: string }) {
  const update = useQueryUpdate();
  const [shown, setShown] = useShownValue(baselineId);
  return (
    <div className="min-w-[16rem]">
      <label htmlFor="baseline" className={labelClass}>
        Baseline
      </label>
      <select
        id="baseline"
        className={inputClass}
        value={shown}
        onChange={(event) => {
          setShown(event.target.value);
          update({ baseline: event.target.value });
        }}
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

/** A number input that commits to the URL on Enter or blur; empty clears the parameter. */
export function NumberParam({
  id,
  label,
  param,
  value,
  placeholder,
  title,
  testId,
  width = "w-32",
  min = 0,
  max,
  step = "any",
}: {
  id: string;
  label: string;
  param: string;
  value: number | null;
  placeholder?: string;
  title: string;
  testId: string;
  width?: string;
  min?: number;
  max?: number;
  step?: number | "any";
}) {
  const update = useQueryUpdate();
  const [text, setText] = useState(value === null ? "" : String(value));
  const commit = () => {
    if (text.trim() === "") {
      update({ [param]: null }, "replace");
      return;
    }
    const number = Number(text);
    if (Number.isFinite(number) && number >= min && (max === undefined || number <= max))
      update({ [param]: String(number) }, "replace");
    else setText(value === null ? "" : String(value));
  };
  return (
    <div className={width}>
      <label htmlFor={id} className={labelClass}>
        {label}
      </label>
      <input
        id={id}
        type="number"
        min={min}
        max={max}
        step={step}
        className={inputClass}
        value={text}
        placeholder={placeholder}
        onChange={(event) => setText(event.target.value)}
        onBlur={commit}
        onKeyDown={(event) => {
          if (event.key === "Enter") commit();
        }}
        title={title}
        data-testid={testId}
      />
    </div>
  );
}

export function NoiseControl({ noisePct, effectivePct }: { noisePct: number | null; effectivePct: number }) {
  return (
    <NumberParam
      id="noise"
      label="Noise ± %"
      param="noise"
      value={noisePct}
      placeholder={String(effectivePct)}
      max={100}
      title="Changes smaller than this are shown as within noise; empty uses the default"
      testId="noise-input"
    />
  );
}

const STAT_OPTIONS: { value: string; label: string }[] = [
  { value: "mean", label: "mean" },
  { value: "median", label: "median (p50)" },
  { value: "p90", label: "p90" },
  { value: "p95", label: "p95" },
  { value: "p99", label: "p99" },
];

export function StatPicker({ stat }: { stat: string }) {
  const update = useQueryUpdate();
  const [shown, setShown] = useShownValue(stat);
  return (
    <div className="w-40">
      <label htmlFor="stat" className={labelClass}>
        Latency statistic
      </label>
      <select
        id="stat"
        className={inputClass}
        value={shown}
        onChange={(event) => {
          setShown(event.target.value);
          update({ stat: event.target.value }, "replace");
        }}
        data-testid="stat-select"
      >
        {STAT_OPTIONS.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </div>
  );
}

export function LogYToggle({ logY }: { logY: boolean }) {
  const update = useQueryUpdate();
  const [shown, setShown] = useShownValue(logY);
  return (
    <label className="flex items-center gap-2 pb-2 text-sm">
      <input
        type="checkbox"
        className="h-4 w-4 accent-blue-600"
        checked={shown}
        onChange={(event) => {
          setShown(event.target.checked);
          update({ logy: event.target.checked ? "1" : null }, "replace");
        }}
        data-testid="log-y"
      />
      Log y axis
    </label>
  );
}

/** SLO targets (TTFT and TPOT ceilings at one statistic) and GPU-hour prices: all in the URL. */
export function SloCostControls({
  ttftMs,
  tpotMs,
  sloStat,
  gpus,
  prices,
  atUser,
}: {
  ttftMs: number | null;
  tpotMs: number | null;
  sloStat: string;
  /** GPU models present in the comparison; one price input each when there are several. */
  gpus: string[];
  prices: { all: number | null; byGpu: Record<string, number> };
  atUser: number | null;
}) {
  const update = useQueryUpdate();
  const [shownSloStat, setShownSloStat] = useShownValue(sloStat);
  const perGpu = gpus.length > 1;
  const [priceText, setPriceText] = useState<Record<string, string>>(() =>
    Object.fromEntries([
      ["", prices.all === null ? "" : String(prices.all)],
      ...gpus.map((gpu) => [gpu, String(prices.byGpu[gpu.toLowerCase()] ?? "")]),
    ]),
  );
  const commitPrices = (next: Record<string, string>) => {
    const parts: string[] = [];
    const all = Number(next[""]);
    if (next[""]?.trim() && Number.isFinite(all) && all > 0) parts.push(String(all));
    for (const gpu of gpus) {
      const value = Number(next[gpu]);
      if (next[gpu]?.trim() && Number.isFinite(value) && value > 0) parts.push(`${gpu}:${value}`);
    }
    update({ price: parts.length > 0 ? parts.join(",") : null }, "replace");
  };
  const priceInput = (gpu: string, label: string) => (
    <div className="w-44" key={gpu || "all"}>
      <label htmlFor={`price-${gpu || "all"}`} className={labelClass}>
        {label}
      </label>
      <input
        id={`price-${gpu || "all"}`}
        type="number"
        min={0}
        step="any"
        className={inputClass}
        value={priceText[gpu] ?? ""}
        onChange={(event) => setPriceText({ ...priceText, [gpu]: event.target.value })}
        onBlur={() => commitPrices(priceText)}
        onKeyDown={(event) => {
          if (event.key === "Enter") commitPrices(priceText);
        }}
        title="Price of one GPU for one hour, in dollars: turns throughput per GPU into $ per million output tokens"
        data-testid={gpu ? `price-input-${gpu}` : "price-input"}
      />
    </div>
  );
  return (
    <fieldset className="flex flex-wrap items-end gap-4" data-testid="slo-cost-controls">
      <legend className="sr-only">SLO targets and cost</legend>
      <NumberParam
        id="slo-ttft"
        label="SLO: TTFT ≤ ms"
        param="slo_ttft"
        value={ttftMs}
        title="Highest acceptable time to first token, in ms"
        testId="slo-ttft-input"
      />
      <NumberParam
        id="slo-tpot"
        label="SLO: TPOT ≤ ms"
        param="slo_tpot"
        value={tpotMs}
        title="Highest acceptable time per output token, in ms"
        testId="slo-tpot-input"
      />
      <div className="w-28">
        <label htmlFor="slo-stat" className={labelClass}>
          at
        </label>
        <select
          id="slo-stat"
          className={inputClass}
          value={shownSloStat}
          onChange={(event) => {
            setShownSloStat(event.target.value);
            update({ slo_stat: event.target.value }, "replace");
          }}
          data-testid="slo-stat-select"
        >
          {STAT_OPTIONS.map((option) => (
            <option key={option.value} value={option.value}>
              {option.value}
            </option>
          ))}
        </select>
      </div>
      {perGpu
        ? [priceInput("", "$ / GPU-hour (others)"), ...gpus.map((gpu) => priceInput(gpu, `$ / GPU-hour, ${gpu}`))]
        : priceInput("", "$ / GPU-hour")}
      <NumberParam
        id="at-user"
        label="Compare at tok/s/user"
        param="at_user"
        value={atUser}
        placeholder="auto"
        width="w-40"
        title="Interactivity to compare throughput per GPU at; empty picks one inside both runs' range"
        testId="at-user-input"
      />
    </fieldset>
  );
}

/**
 * The runs as the latest edit left them: a run added or removed a moment ago counts before the page shows it.
 * A saved comparison's page may not name its runs in the URL; the page's own list holds then.
 */
function latestRunIds(query: URLSearchParams, shown: string[]): string[] {
  const runs = query.get("runs");
  return runs ? runs.split(",").filter(Boolean) : shown;
}

export function AddRunPicker({ candidates, runIds }: { candidates: RunOption[]; runIds: string[] }) {
  const router = useRouter();
  const update = useQueryUpdate();
  const latest = useLatestQuery();
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
          else update({ runs: [...latestRunIds(latest(), runIds), id].join(",") });
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

/** Takes a series out of the comparison: every run it averages (its repeats) goes together. */
export function RemoveRunButton({
  runIds,
  remove,
  baselineId,
}: {
  runIds: string[];
  /** The runs of the series. */
  remove: string[];
  baselineId: string;
}) {
  const router = useRouter();
  const update = useQueryUpdate();
  const latest = useLatestQuery();
  return (
    <button
      type="button"
      className="text-xs text-zinc-600 hover:text-red-700 hover:underline dark:text-zinc-400 dark:hover:text-red-400"
      onClick={() => {
        const rest = latestRunIds(latest(), runIds).filter((id) => !remove.includes(id));
        if (rest.length === 0) router.push("/compare");
        else
          update({
            runs: rest.join(","),
            baseline: remove.includes(baselineId) || rest[0] === baselineId ? null : baselineId,
          });
      }}
      aria-label="Remove from comparison"
      data-testid="remove-series"
    >
      remove
    </button>
  );
}
