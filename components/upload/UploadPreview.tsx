/**
 * What the server made of the chosen files: each file's detected format and load levels, the runs they
 * would become, what those runs lack, and any conflict that needs a decision before saving.
 */

import { tableClass, tdClass, thClass } from "@/components/ui/primitives";
import { formatFlag } from "@/lib/document/flag-format";
import { isUnknownEngine } from "@/lib/document/names";
import type { FlagValue, ResultPoint } from "@/lib/document/schema";
import { formatHardware, formatLoadLevel, formatNumber } from "@/lib/format";
import { formatName } from "@/lib/formats/names";
import type { UploadPreview as Preview, PreviewRun } from "@/lib/ingest/preview";
import { fieldOfPath } from "./fields";

function RunPreview({
  run,
  index,
  total,
  issuesAtFields,
}: {
  run: PreviewRun;
  index: number;
  total: number;
  issuesAtFields: boolean;
}) {
  // Problems the form shows beside their field are not said a second time here.
  const issues = issuesAtFields ? run.issues.filter((issue) => fieldOfPath(issue.path) === null) : run.issues;
  const doc = run.document;
  const points = (Array.isArray(doc.results) ? doc.results : []) as ResultPoint[];
  const flags = (doc.flags && typeof doc.flags === "object" && !Array.isArray(doc.flags) ? doc.flags : {}) as Record<
    string,
    FlagValue
  >;
  const warnings = (Array.isArray(doc.warnings) ? doc.warnings : []) as string[];
  const hardware = (doc.hardware ?? {}) as { gpu?: string; gpu_count?: number };
  return (
    <div className="space-y-3 rounded-lg border border-zinc-200 p-4 dark:border-zinc-800" data-testid="preview-run">
      <div>
        {total > 1 ? (
          <div className="text-xs uppercase tracking-wide text-zinc-600 dark:text-zinc-400">
            Run {index + 1} of {total}
          </div>
        ) : null}
        <div className="text-base font-semibold" data-testid="preview-name">
          {typeof doc.name === "string" && doc.name ? doc.name : "Unnamed until the engine and model are known"}
        </div>
        <div className="text-zinc-600 dark:text-zinc-400">
          {[
            typeof doc.engine !== "string" || doc.engine === ""
              ? "engine not given"
              : isUnknownEngine(doc.engine)
                ? "engine not stated"
                : `${doc.engine}${doc.engine_version ? ` ${String(doc.engine_version)}` : ""}`,
            doc.model ? String(doc.model) : "model not given",
            formatHardware(hardware),
          ].join(" · ")}
        </div>
        <div className="mt-1 text-xs text-zinc-600 dark:text-zinc-400">
          Format: <span data-testid="preview-format">{formatName(String(doc.source_format ?? "servebench/v1"))}</span>
          {" · "}
          <span data-testid="preview-points-total">
            {formatNumber(run.points_total)} {run.points_total === 1 ? "point" : "points"}
          </span>
        </div>
        <div className="mt-2 flex flex-wrap gap-4">
          <span>
            Single stream:{" "}
            <strong data-testid="preview-single-stream">
              {run.single_stream ? `${formatNumber(run.single_stream.output_tok_s)} tok/s` : "—"}
            </strong>
          </span>
          <span>
            Peak:{" "}
            <strong data-testid="preview-peak">
              {run.peak ? `${formatNumber(run.peak.output_tok_s)} tok/s @ ${formatLoadLevel(run.peak)}` : "—"}
            </strong>
          </span>
        </div>
      </div>
      {run.missing.length > 0 ? (
        <p
          className="rounded-md border border-amber-300 bg-amber-50 p-2 text-amber-900 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-200"
          data-testid="missing-context"
        >
          The files do not say: {run.missing.join(", ")}. Fill them in on the left so this run can be compared fairly.
        </p>
      ) : null}
      {issues.length > 0 ? (
        <ul className="list-disc space-y-0.5 pl-5 text-red-700 dark:text-red-400" data-testid="preview-issues">
          {issues.map((issue, issueIndex) => (
            <li key={issueIndex}>
              <code className="font-mono text-xs">{issue.path || "(document)"}</code>: {issue.message}
            </li>
          ))}
        </ul>
      ) : null}
      {warnings.length > 0 ? (
        <ul className="list-disc space-y-0.5 pl-5 text-amber-800 dark:text-amber-300" data-testid="preview-warnings">
          {warnings.map((warning, warningIndex) => (
            <li key={warningIndex}>{warning}</li>
          ))}
        </ul>
      ) : null}
      <div className="overflow-x-auto">
        <table className={tableClass} data-testid="preview-points">
          <thead>
            <tr>
              <th className={thClass}>Load</th>
              <th className={`${thClass} text-right`}>Output tok/s</th>
              <th className={`${thClass} text-right`}>Mean TPOT ms</th>
              <th className={`${thClass} text-right`}>Mean TTFT ms</th>
              <th className={`${thClass} text-right`}>Completed</th>
              <th className={`${thClass} text-right`}>Failed</th>
            </tr>
          </thead>
          <tbody>
            {points.map((point, pointIndex) => (
              <tr key={pointIndex}>
                <td className={tdClass}>{formatLoadLevel(point)}</td>
                <td className={`${tdClass} num`}>{formatNumber(point.output_throughput)}</td>
                <td className={`${tdClass} num`}>{formatNumber(point.mean_tpot_ms)}</td>
                <td className={`${tdClass} num`}>{formatNumber(point.mean_ttft_ms)}</td>
                <td className={`${tdClass} num`}>{formatNumber(point.completed)}</td>
                <td className={`${tdClass} num`}>{formatNumber(point.failed)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {Object.keys(flags).length > 0 ? (
        <div>
          <div className="mb-1 text-xs font-medium uppercase tracking-wide text-zinc-600 dark:text-zinc-400">Flags</div>
          <ul className="flex flex-wrap gap-1.5 font-mono text-xs">
            {Object.entries(flags).map(([name, value]) => (
              <li key={name} className="rounded bg-zinc-100 px-1.5 py-0.5 dark:bg-zinc-800">
                {formatFlag(name, value)}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </div>
  );
}

export function UploadPreviewPanel({
  preview,
  issuesAtFields,
  picked,
  onTogglePick,
  split,
  onSplit,
  repeatsOneRun,
  onRepeatsOneRun,
}: {
  preview: Preview;
  /** The form shows the problems of its fields beside them (one run only). */
  issuesAtFields: boolean;
  picked: Set<number> | null;
  onTogglePick: (index: number) => void;
  split: boolean;
  onSplit: (split: boolean) => void;
  repeatsOneRun: boolean;
  onRepeatsOneRun: (value: boolean) => void;
}) {
  return (
    <div className="space-y-4 text-sm">
      {preview.fragments.length > 0 ? (
        <div className="overflow-x-auto">
          <table className={tableClass} data-testid="preview-fragments">
            <thead>
              <tr>
                <th className={thClass}>Keep</th>
                <th className={thClass}>File</th>
                <th className={thClass}>Recognized as</th>
                <th className={thClass}>Load levels</th>
              </tr>
            </thead>
            <tbody>
              {preview.fragments.map((fragment) => (
                <tr key={fragment.index}>
                  <td className={tdClass}>
                    <input
                      type="checkbox"
                      className="h-4 w-4 accent-blue-600"
                      checked={picked === null || picked.has(fragment.index)}
                      onChange={() => onTogglePick(fragment.index)}
                      aria-label={`Keep ${fragment.file}${fragment.part ? ` ${fragment.part}` : ""}`}
                    />
                  </td>
                  <td className={`${tdClass} break-all`}>
                    {fragment.file}
                    {fragment.part ? (
                      <span className="text-zinc-600 dark:text-zinc-400"> · {fragment.part}</span>
                    ) : null}
                    {fragment.warnings.length > 0 ? (
                      <div className="text-xs text-amber-700 dark:text-amber-400">{fragment.warnings.join(" ")}</div>
                    ) : null}
                  </td>
                  <td className={tdClass} data-testid="fragment-format">
                    {fragment.format_label}
                  </td>
                  <td className={tdClass}>{fragment.levels.join(", ")}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {preview.fragments_total > preview.fragments.length ? (
            <p className="mt-1 text-xs text-zinc-500 dark:text-zinc-400" data-testid="preview-fragments-more">
              The first {preview.fragments.length.toLocaleString("en-US")} of{" "}
              {preview.fragments_total.toLocaleString("en-US")} fragments are listed.
            </p>
          ) : null}
        </div>
      ) : null}
      {(preview.accuracy_files ?? []).length > 0 ? (
        <ul className="list-disc space-y-0.5 pl-5" data-testid="preview-accuracy">
          {(preview.accuracy_files ?? []).map((item) => (
            <li key={item.file}>
              {item.file}: {item.scores} accuracy score{item.scores === 1 ? "" : "s"} ({item.format}
              {item.model ? `, ${item.model}` : ""}), stored with the run.
              {item.warnings.length > 0 ? ` ${item.warnings.join(" ")}` : ""}
            </li>
          ))}
        </ul>
      ) : null}
      {preview.skipped.length > 0 || preview.duplicates.length > 0 || (preview.ignored ?? []).length > 0 ? (
        <ul className="list-disc space-y-0.5 pl-5 text-zinc-600 dark:text-zinc-400" data-testid="preview-skipped">
          {preview.skipped.map((skipped) => (
            <li key={skipped.file}>
              Skipped {skipped.file}: {skipped.reason}.
            </li>
          ))}
          {(preview.ignored ?? []).map((item) => (
            <li key={`ignored-${item.file}`}>
              Left out {item.file}: {item.reason}.
            </li>
          ))}
          {preview.duplicates.map((duplicate, index) => (
            <li key={`${duplicate.file}-${index}`}>
              Skipped {duplicate.file}
              {duplicate.part ? ` (${duplicate.part})` : ""}: the same figures as {duplicate.same_as}.
            </li>
          ))}
        </ul>
      ) : null}
      {preview.has_repeats ? (
        <div
          className="space-y-1 rounded-md border border-zinc-200 p-3 dark:border-zinc-700"
          data-testid="preview-repeats"
        >
          <label className="flex items-center gap-2 font-medium">
            <input
              type="checkbox"
              className="h-4 w-4 accent-blue-600"
              checked={repeatsOneRun}
              onChange={(event) => onRepeatsOneRun(event.target.checked)}
              data-testid="repeats-one-run"
            />
            Store repeats of a configuration as one run with repeats
          </label>
          <p className="text-xs text-zinc-600 dark:text-zinc-400">
            Some files measure the same load level of one configuration again. As one run, each level keeps every
            repeat; the run's figures are their mean, and comparisons show the range and call overlapping changes
            inconclusive. Otherwise each repeat is stored as a run of its own (compare groups them again).
          </p>
        </div>
      ) : null}
      {preview.conflicts.length > 0 ? (
        <div
          className="space-y-2 rounded-md border border-amber-300 bg-amber-50 p-3 text-amber-900 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-200"
          data-testid="preview-conflicts"
        >
          {preview.conflicts.map((conflict, index) => (
            <p key={index}>{conflict}</p>
          ))}
          <label className="flex items-center gap-2 font-medium">
            <input
              type="checkbox"
              className="h-4 w-4 accent-blue-600"
              checked={split}
              onChange={(event) => onSplit(event.target.checked)}
              data-testid="split-runs"
            />
            Store them as {preview.runs.length} separate runs
          </label>
          <p className="text-xs">Or untick files above to keep only the ones that belong together.</p>
        </div>
      ) : null}
      {preview.runs.map((run, index) => (
        <RunPreview key={index} run={run} index={index} total={preview.runs.length} issuesAtFields={issuesAtFields} />
      ))}
    </div>
  );
}
