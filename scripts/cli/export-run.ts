/**
 * `servebench export-run RUN [--format llm-d|servebench] [-o FILE]`: one stored run as a file another tool reads.
 * `llm-d` is the llm-d benchmark report v0.2.1, a JSON array of one report per load point (GET
 * /api/runs/{id}?format=llm-d); `servebench` the run's servebench/v1 document. Exits 1 when the run cannot be
 * fetched, 2 on bad usage.
 */
import fs from "node:fs";
import { parseArgs } from "node:util";
import { runsAfterOptions, target } from "./compare";
import {
  READ_TIMEOUT_MS,
  RUN_ANSWER_MAX_BYTES,
  requestServer,
  serverBase,
  TimeoutOptionError,
  timeoutMsFrom,
} from "./server-request";
import { terminalSafe, terminalSafeJson } from "./server-text";

export const EXPORT_RUN_USAGE = `servebench export-run RUN [options]

  RUN                   a run id, or its link (http://…/runs/ID)
  --format llm-d|servebench
                        llm-d: llm-d benchmark reports v0.2.1, a JSON array of one report per load point;
                        servebench: the run's servebench/v1 document (default)
  -o, --output FILE     write to FILE instead of stdout
  --price DOLLARS       with --format llm-d: $ per GPU-hour, for $ per million output tokens in each report
  --url URL             the servebench server (default: $SERVEBENCH_URL or http://localhost:3000; a link names its own)
  --timeout SECONDS     how long reading the run may take, from connecting to the server's last byte (default: 30)`;

const WITH_VALUE = new Set(["--format", "-o", "--output", "--price", "--url", "--timeout"]);
const NAMES = new Set([...WITH_VALUE, "--help", "-h"]);

function usageError(message: string): number {
  process.stderr.write(`servebench export-run: ${message}\n\n${EXPORT_RUN_USAGE}\n`);
  return 2;
}

export async function runExportRun(argv: string[]): Promise<number> {
  let values: { format?: string; output?: string; price?: string; url?: string; timeout?: string; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: runsAfterOptions(argv, WITH_VALUE, NAMES),
      options: {
        format: { type: "string" },
        output: { type: "string", short: "o" },
        price: { type: "string" },
        url: { type: "string" },
        timeout: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      allowPositionals: true,
      strict: true,
    }));
  } catch (error) {
    return usageError(error instanceof Error ? error.message : String(error));
  }
  if (values.help) {
    process.stdout.write(`${EXPORT_RUN_USAGE}\n`);
    return 0;
  }
  const format = values.format ?? "servebench";
  if (positionals.length !== 1) return usageError(`name one run (given: ${positionals.length})`);
  if (format !== "llm-d" && format !== "servebench")
    return usageError(`--format is llm-d or servebench, not "${format}"`);
  if (values.price !== undefined && format !== "llm-d") return usageError("--price goes with --format llm-d");
  let timeoutMs: number;
  try {
    timeoutMs = timeoutMsFrom("--timeout", values.timeout, READ_TIMEOUT_MS);
  } catch (error) {
    if (error instanceof TimeoutOptionError) return usageError(error.message);
    throw error;
  }
  const defaultBase = serverBase(values.url);
  try {
    const { base, id } = target(positionals[0]!, defaultBase);
    const query = new URLSearchParams();
    if (format === "llm-d") query.set("format", "llm-d");
    if (values.price !== undefined) query.set("price", values.price);
    const search = query.size > 0 ? `?${query}` : "";
    const response = await requestServer(
      `${base}/api/runs/${encodeURIComponent(id)}${search}`,
      {},
      { base, timeoutMs, timeoutOption: "--timeout", maxAnswerBytes: RUN_ANSWER_MAX_BYTES },
    );
    let body: unknown = null;
    try {
      body = JSON.parse(response.text) as unknown;
    } catch {
      // Said below, with the status.
    }
    if (!response.ok || body === null) {
      const message = (body as { error?: { message?: string } } | null)?.error?.message;
      throw new Error(
        `run ${id}: ${message ?? `HTTP ${response.status}${body === null ? ", not servebench's JSON" : ""}`}`,
      );
    }
    if (values.output !== undefined && values.output !== "-") {
      fs.writeFileSync(values.output, `${JSON.stringify(body, null, 2)}\n`);
      const what = format === "llm-d" ? `${(body as unknown[]).length} llm-d report(s)` : "the run";
      process.stderr.write(terminalSafe(`servebench export-run: wrote ${what} to ${values.output}\n`));
    } else {
      process.stdout.write(`${terminalSafeJson(body, 2)}\n`);
    }
    return 0;
  } catch (error) {
    process.stderr.write(
      terminalSafe(`servebench export-run: ${error instanceof Error ? error.message : String(error)}\n`),
    );
    return 1;
  }
}
