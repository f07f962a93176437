/**
 * The GPUs' electrical power while each load level runs (docs/bench.md#power), from one of:
 *
 * - a DCGM exporter's Prometheus metrics (`--power-metrics URL`, or the server's own /metrics when it exposes
 *   them): the gauge `DCGM_FI_DEV_POWER_USAGE` (W, one series per GPU) and, when exposed, the counter
 *   `DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION` (mJ since the driver loaded, one series per GPU);
 * - `nvidia-smi --query-gpu=power.draw --format=csv,noheader,nounits` (W, one line per GPU);
 * - `amd-smi metric --power --json` (socket power in W, one entry per GPU).
 *
 * Power is read every interval while a level runs and folded into running sums (mean and largest of the GPUs'
 * summed power); energy is the energy counters' increase between a reading just before the level and one just
 * after it, which integrates every moment the samples would miss. Nothing is kept per sample, so memory stays
 * flat however long a level runs. A tool that is missing or fails never stops the benchmark: the level then has
 * no power figures and the command says so once.
 */
import { execFile } from "node:child_process";
import type { PowerSource, ResultPoint } from "@/lib/document/schema";
import { createPool, getText, type HttpPool } from "./client";
import { type LevelSampleCounts, type LevelSampler, type SampleAnswer, startLevelSampler } from "./level-sampler";
import { readExposition } from "./prometheus";

export const DCGM_POWER = "DCGM_FI_DEV_POWER_USAGE";
export const DCGM_ENERGY = "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION";
const DCGM_NAMES: ReadonlySet<string> = new Set([DCGM_POWER, DCGM_ENERGY]);

export const NVIDIA_SMI_ARGS = ["--query-gpu=power.draw", "--format=csv,noheader,nounits"] as const;
export const AMD_SMI_ARGS = ["metric", "--power", "--json"] as const;

/** `--power`: where to read power; `auto` picks what is there (docs/bench.md#power). */
export type PowerMode = "auto" | "dcgm" | "nvidia-smi" | "amd-smi" | "off";
export const POWER_MODES: readonly PowerMode[] = ["auto", "dcgm", "nvidia-smi", "amd-smi", "off"];

export interface PowerConfig {
  mode: PowerMode;
  /** `--power-metrics`: a DCGM exporter's /metrics. */
  metricsUrl?: URL;
  intervalMs: number;
}

export const DEFAULT_POWER_INTERVAL_MS = 500;

/** One reading of every GPU a source sees. */
export interface PowerReading {
  /** The GPUs' power summed, in W. */
  watts: number;
  /** GPUs whose power was read. */
  gpus: number;
  /** Their energy counters summed, in J; absent when the source has none. */
  energyJ?: number;
  /** GPUs whose energy counter was read. */
  energyGpus?: number;
}

export type PowerAnswer = SampleAnswer<PowerReading>;

/** Where readings come from: a DCGM exporter over HTTP, or a vendor command run once per reading. */
export interface PowerReader {
  readonly source: PowerSource;
  /** What the figures' `sources` entries name, e.g. the metric or the command. */
  readonly power_name: string;
  readonly energy_name?: string;
  /** For the line the command prints. */
  readonly label: string;
  read(): Promise<PowerAnswer>;
  close(): void;
}

/* ------------------------------------------------------------------------------------------------------ */
/* Parsing                                                                                                  */

/** A DCGM exporter's exposition: power summed over the GPUs' series, the energy counters (mJ) summed into J. */
export function parseDcgm(text: string): PowerAnswer {
  const reading = readExposition(text, DCGM_NAMES);
  const power = reading.get(DCGM_POWER);
  if (!power) return { ok: false, error: `no ${DCGM_POWER} in the metrics` };
  const result: PowerReading = { watts: power.sum, gpus: power.series };
  const energy = reading.get(DCGM_ENERGY);
  if (energy) {
    result.energyJ = energy.sum / 1000;
    result.energyGpus = energy.series;
  }
  return { ok: true, reading: result };
}

/** True when an exposition has DCGM's power gauge: a server (or a gateway) that re-exports the GPUs' metrics. */
export function hasDcgmPower(text: string): boolean {
  return /^DCGM_FI_DEV_POWER_USAGE[{ ]/m.test(text);
}

/** nvidia-smi's CSV, one line per GPU: "350.12" (or "[N/A]" for a GPU that cannot tell its power). */
export function parseNvidiaSmi(text: string): PowerAnswer {
  const lines = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);
  let watts = 0;
  let gpus = 0;
  for (const line of lines) {
    const value = Number(line.split(",").pop()?.trim());
    if (!Number.isFinite(value) || value < 0) continue;
    watts += value;
    gpus += 1;
  }
  if (gpus === 0) return { ok: false, error: `nvidia-smi gave no power reading (${excerpt(text)})` };
  return { ok: true, reading: { watts, gpus } };
}

/** A value amd-smi writes as a number, `{ "value": 142, "unit": "W" }`, or "N/A". In W (mW converted). */
function amdWatts(value: unknown): number | null {
  if (typeof value === "number") return Number.isFinite(value) && value >= 0 ? value : null;
  if (typeof value === "object" && value !== null && "value" in value) {
    const record = value as { value: unknown; unit?: unknown };
    const number = typeof record.value === "number" ? record.value : Number(record.value);
    if (!Number.isFinite(number) || number < 0) return null;
    return typeof record.unit === "string" && record.unit.trim().toLowerCase() === "mw" ? number / 1000 : number;
  }
  return null;
}

/** The socket power fields amd-smi has written across ROCm versions, the current one first. */
const AMD_POWER_FIELDS = ["socket_power", "current_socket_power", "average_socket_power"];

/**
 * `amd-smi metric --power --json`: a list of GPUs (ROCm 6) or `{ "gpu_data": [...] }` (ROCm 7), each with
 * `power.socket_power` (`average_socket_power` on older releases) as a number or `{ value, unit }`.
 */
export function parseAmdSmi(text: string): PowerAnswer {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { ok: false, error: `amd-smi did not answer JSON (${excerpt(text)})` };
  }
  const list = Array.isArray(data)
    ? data
    : typeof data === "object" && data !== null && Array.isArray((data as { gpu_data?: unknown }).gpu_data)
      ? (data as { gpu_data: unknown[] }).gpu_data
      : null;
  if (!list) return { ok: false, error: "amd-smi's JSON has no list of GPUs" };
  let watts = 0;
  let gpus = 0;
  for (const entry of list) {
    const power = (entry as { power?: Record<string, unknown> } | null)?.power;
    if (typeof power !== "object" || power === null) continue;
    for (const field of AMD_POWER_FIELDS) {
      const value = amdWatts(power[field]);
      if (value === null) continue;
      watts += value;
      gpus += 1;
      break;
    }
  }
  if (gpus === 0) return { ok: false, error: "amd-smi gave no socket power for any GPU" };
  return { ok: true, reading: { watts, gpus } };
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat === "" ? "nothing" : `"${flat.slice(0, 80)}${flat.length > 80 ? "…" : ""}"`;
}

/* ------------------------------------------------------------------------------------------------------ */
/* Readers                                                                                                  */

/** A DCGM exporter's /metrics, read on a connection of its own. */
export class DcgmReader implements PowerReader {
  readonly source = "dcgm-exporter" as const;
  readonly power_name = DCGM_POWER;
  readonly energy_name = DCGM_ENERGY;
  private readonly pool: HttpPool;

  constructor(
    readonly url: URL,
    private readonly headers: Record<string, string>,
    private readonly timeoutMs = 5_000,
  ) {
    this.pool = createPool(url, 1);
  }

  get label(): string {
    return this.url.href;
  }

  async read(): Promise<PowerAnswer> {
    const answer = await getText(
      this.pool,
      this.url,
      this.headers,
      this.timeoutMs,
      16_000_000,
      "text/plain, */*;q=0.1",
    );
    if (!answer.ok) return { ok: false, error: answer.error };
    return parseDcgm(answer.text);
  }

  close(): void {
    this.pool.close();
  }
}

export type RunCommand = (file: string, args: readonly string[], timeoutMs: number) => Promise<string>;

/** Runs a command and resolves with its standard output; rejects with a short reason. */
export const runCommand: RunCommand = (file, args, timeoutMs) =>
  new Promise((resolve, reject) => {
    execFile(file, [...args], { timeout: timeoutMs, maxBuffer: 4_000_000, windowsHide: true }, (error, stdout) => {
      if (!error) {
        resolve(stdout);
        return;
      }
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT") reject(new Error(`${file}: not found on PATH`));
      else if (error.killed) reject(new Error(`${file}: no answer within ${timeoutMs} ms`));
      else reject(new Error(`${file}: ${error.message.split("\n")[0]}`));
    });
  });

/** nvidia-smi or amd-smi, run once per reading (each reading is one short process). */
export class CommandReader implements PowerReader {
  readonly power_name: string;
  readonly label: string;

  constructor(
    readonly source: "nvidia-smi" | "amd-smi",
    private readonly run: RunCommand = runCommand,
    private readonly timeoutMs = 5_000,
  ) {
    const args = source === "nvidia-smi" ? NVIDIA_SMI_ARGS : AMD_SMI_ARGS;
    this.power_name = `${source} ${args.join(" ")}`;
    this.label = source;
  }

  async read(): Promise<PowerAnswer> {
    const args = this.source === "nvidia-smi" ? NVIDIA_SMI_ARGS : AMD_SMI_ARGS;
    let text: string;
    try {
      text = await this.run(this.source, args, this.timeoutMs);
    } catch (error) {
      return { ok: false, error: error instanceof Error ? error.message : String(error) };
    }
    return this.source === "nvidia-smi" ? parseNvidiaSmi(text) : parseAmdSmi(text);
  }

  close(): void {}
}

/* ------------------------------------------------------------------------------------------------------ */
/* One level                                                                                                */

export type PowerFigures = Partial<
  Pick<ResultPoint, "power_w_mean" | "power_w_max" | "energy_j" | "power_gpu_count" | "power_samples" | "power_source">
>;

export interface LevelPowerResult extends LevelSampleCounts {
  figures: PowerFigures;
  sources: Record<string, string>;
  /** Why a figure was left out (a counter that went down or did not move). */
  notes: string[];
}

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

/**
 * One level's power, folded reading by reading: `baseline` just before its first request, `sample` every
 * reading while it runs, `final` just after its last request ended. Running sums only.
 */
export class LevelPower {
  private baselineReading: PowerReading | null = null;
  private finalReading: PowerReading | null = null;
  private total = 0;
  private max = 0;
  private gpus = 0;
  samples = 0;

  constructor(private readonly reader: Pick<PowerReader, "source" | "power_name" | "energy_name">) {}

  baseline(reading: PowerReading): void {
    this.baselineReading = reading;
  }

  sample(reading: PowerReading): void {
    this.samples += 1;
    this.total += reading.watts;
    this.max = Math.max(this.max, reading.watts);
    this.gpus = Math.max(this.gpus, reading.gpus);
  }

  final(reading: PowerReading): void {
    this.finalReading = reading;
  }

  result(): Pick<LevelPowerResult, "figures" | "sources" | "notes"> {
    const figures: PowerFigures = {};
    const sources: Record<string, string> = {};
    const notes: string[] = [];
    if (this.samples > 0) {
      figures.power_w_mean = round(this.total / this.samples, 3);
      figures.power_w_max = round(this.max, 3);
      figures.power_samples = this.samples;
      sources.power_w_mean = this.reader.power_name;
      sources.power_w_max = this.reader.power_name;
    }
    const before = this.baselineReading;
    const after = this.finalReading;
    if (before?.energyJ !== undefined && after?.energyJ !== undefined) {
      const increase = after.energyJ - before.energyJ;
      const name = this.reader.energy_name ?? "energy counter";
      if (before.energyGpus !== after.energyGpus) {
        notes.push(`${name}: ${before.energyGpus} GPUs before the level, ${after.energyGpus} after: energy left out`);
      } else if (increase < 0) {
        notes.push(`${name} went down during the level (the driver or the exporter restarted?): energy left out`);
      } else if (increase === 0) {
        // GPUs that drew power used energy: a counter that did not move was not updated within the level
        // (a DCGM exporter collects every 30 s by default; run it with -c 500 or less).
        notes.push(`${name} did not move during the level (not updated that often?): energy left out`);
      } else {
        figures.energy_j = round(increase, 3);
        sources.energy_j = `${name} (after − before the level)`;
      }
    }
    // The GPUs the summed figures cover: those whose power was read, else (energy only) those with a counter.
    const gpus = this.gpus > 0 ? this.gpus : figures.energy_j !== undefined ? (after?.energyGpus ?? 0) : 0;
    if (Object.keys(figures).length > 0) {
      if (gpus > 0) figures.power_gpu_count = gpus;
      figures.power_source = this.reader.source;
    }
    return { figures, sources, notes };
  }
}

/** Reads power every interval while a level runs, one reading at a time. */
export class PowerWatcher {
  constructor(
    readonly reader: PowerReader,
    readonly intervalMs: number,
  ) {}

  /** Take the level's baseline reading and keep reading every interval until `stop`. */
  beginLevel(): Promise<LevelSampler<PowerReading, Pick<LevelPowerResult, "figures" | "sources" | "notes">>> {
    return startLevelSampler(() => this.reader.read(), new LevelPower(this.reader), this.intervalMs);
  }

  close(): void {
    this.reader.close();
  }
}
