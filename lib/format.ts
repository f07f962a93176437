/**
 * How numbers, changes and load levels read on screen. Every page formats through these functions so a
 * figure reads the same in a card, a table, a chart tooltip and a copied link preview.
 */

const grouped = (fractionDigits: number) =>
  new Intl.NumberFormat("en-US", { maximumFractionDigits: fractionDigits, minimumFractionDigits: 0 });
const FORMATTERS = [grouped(0), grouped(1), grouped(2), grouped(3)] as const;

/**
 * A measured figure with as many decimals as it needs and no more: 2,370 · 63.6 · 15.7 · 0.42.
 * Values of 100 and above are shown whole; smaller values keep one decimal, tiny ones up to three.
 */
export function formatNumber(value: number | null | undefined): string {
  if (value == null || !Number.isFinite(value)) return "—";
  const magnitude = Math.abs(value);
  const digits = magnitude >= 100 ? 0 : magnitude >= 1 ? 1 : magnitude >= 0.01 ? 2 : 3;
  return FORMATTERS[digits].format(value);
}

const DOLLARS = new Intl.NumberFormat("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/**
 * Money in US dollars with cents: $0.20, $1,234.50. A positive figure that would round to $0.00 reads
 * "< $0.01" (and a negative one "> -$0.01"), so a tiny cost is never shown as free.
 */
export function formatUsd(value: number | null | undefined): string {
  if (value == null || !Number.isFinite(value)) return "—";
  if (value !== 0 && Math.abs(value) < 0.005) return value > 0 ? "< $0.01" : "> -$0.01";
  const text = DOLLARS.format(Math.abs(value));
  return value < 0 ? `-$${text}` : `$${text}`;
}

export function formatTokS(value: number | null | undefined): string {
  return value == null ? "—" : `${formatNumber(value)} tok/s`;
}

export function formatMs(value: number | null | undefined): string {
  return value == null ? "—" : `${formatNumber(value)} ms`;
}

/** Relative change from `base` to `value` as a fraction (0.5 = +50%); null when it cannot be computed. */
export function relativeChange(base: number | null | undefined, value: number | null | undefined): number | null {
  if (base == null || value == null || !Number.isFinite(base) || !Number.isFinite(value) || base === 0) return null;
  return (value - base) / Math.abs(base);
}

/** `+135.6%`, `-23.0%`, `0.0%`: always a sign, one decimal. */
export function formatPercentChange(change: number | null): string {
  if (change === null) return "—";
  // Round the magnitude so a change and its opposite read the same apart from the sign.
  const magnitude = Math.round(Math.abs(change) * 1000) / 10;
  if (magnitude === 0) return "0.0%";
  return `${change > 0 ? "+" : "-"}${magnitude.toFixed(1)}%`;
}

/** `27 → 63.6 tok/s (+135.6%)`: the line a comparison is remembered by. */
export function formatChangeLine(
  base: number | null | undefined,
  value: number | null | undefined,
  unit: string,
): string {
  if (base == null || value == null) return `${formatNumber(base)} → ${formatNumber(value)} ${unit}`;
  return `${formatNumber(base)} → ${formatNumber(value)} ${unit} (${formatPercentChange(relativeChange(base, value))})`;
}

export function formatLoadLevel(point: { concurrency?: number | null; request_rate?: number | "inf" | null }): string {
  if (point.concurrency != null) return `C=${point.concurrency}`;
  if (point.request_rate === "inf") return "rate ∞";
  if (point.request_rate != null) return `${formatNumber(point.request_rate)} req/s`;
  return "—";
}

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return "—";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "—";
  return date.toISOString().slice(0, 10);
}

export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return "—";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "—";
  return `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

export function formatHardware(hardware: { gpu?: string | null; gpu_count?: number | null } | undefined): string {
  if (!hardware || (!hardware.gpu && !hardware.gpu_count)) return "—";
  if (hardware.gpu && hardware.gpu_count) return `${hardware.gpu_count}× ${hardware.gpu}`;
  if (hardware.gpu) return hardware.gpu;
  return `${hardware.gpu_count} GPU${hardware.gpu_count === 1 ? "" : "s"}`;
}

export function formatDuration(seconds: number | null | undefined): string {
  if (seconds == null) return "—";
  if (seconds < 120) return `${formatNumber(seconds)} s`;
  const whole = Math.round(seconds);
  const minutes = Math.floor(whole / 60);
  const rest = whole - minutes * 60;
  return `${formatNumber(seconds)} s (${minutes} min ${rest} s)`;
}

/**
 * Import warnings as a run's page lists them. A warning about one file reads "<file>: <message>"; the same message
 * about several files is listed once with their names, so a sweep of twelve files sharing one quirk reads as one
 * warning instead of twelve. Warnings without a file name are kept as they are, in their order.
 */
export function groupedWarnings(warnings: readonly string[]): string[] {
  const groups = new Map<string, { message: string; files: string[] }>();
  for (const warning of warnings) {
    const colon = warning.indexOf(": ");
    const file = colon > 0 ? warning.slice(0, colon) : "";
    // A file name has no spaces; a sentence that happens to hold ": " is not split.
    const named = file !== "" && !/\s/.test(file);
    const message = named ? warning.slice(colon + 2) : warning;
    const key = named ? `file\u0000${message}` : `text\u0000${warning}`;
    const group = groups.get(key);
    if (group && named) group.files.push(file);
    else if (!group) groups.set(key, { message, files: named ? [file] : [] });
  }
  return [...groups.values()].map(({ message, files }) =>
    files.length === 0
      ? message
      : files.length === 1
        ? `${files[0]}: ${message}`
        : `${files.length} files (${files.join(", ")}): ${message}`,
  );
}
