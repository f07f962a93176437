/**
 * servebench as a read-only MCP server: the tools an agent needs to answer "did last night's upgrade regress TTFT on
 * H200?" with figures it can cite. Every tool reads; none writes (there is no tool to upload, edit or delete, so no
 * write can be asked for). The tools take the same parameters as the JSON API and answer from the same queries as the
 * pages, so a number an agent quotes is the number the linked page shows.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { COMPARE_STATS } from "@/lib/analysis/lines";
import { parseCompareView } from "@/lib/comparisons/view";
import { AppError } from "@/lib/errors";
import { SORT_KEYS } from "@/lib/runs/history";
import { ListQuerySchema } from "@/lib/runs/list-query";
import { ALERT_STATUSES, SeriesViewQuerySchema } from "@/lib/series/schema";
import { zodIssues } from "@/lib/zod-issues";
import {
  alertsAnswer,
  compareAnswer,
  comparisonsAnswer,
  runAnswer,
  savedComparisonAnswer,
  searchRunsAnswer,
  seriesAnswer,
  seriesListAnswer,
} from "./answers";

export const MCP_SERVER_NAME = "servebench";

/** The tools, in the order they are registered (and listed). */
export const MCP_TOOL_NAMES = [
  "search_runs",
  "get_run",
  "compare_runs",
  "list_comparisons",
  "get_comparison",
  "list_series",
  "get_series",
  "list_alerts",
] as const;

/** Every tool only reads this instance's data: clients may call them without asking the user each time. */
const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

const id = z.string().trim().min(1).max(200);
const page = z.number().int().min(1).max(1_000_000).optional();
const perPage = z.number().int().min(1).max(100).optional();

function text(value: unknown): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(value, null, 2) }] };
}

/** A refusal an agent can act on: the same message and field paths the JSON API answers with. */
function failure(error: unknown): CallToolResult {
  if (error instanceof AppError)
    return {
      ...text({ error: { code: error.code, message: error.message, issues: error.issues ?? [] } }),
      isError: true,
    };
  if (error instanceof z.ZodError)
    return {
      ...text({ error: { code: "bad_request", message: "Invalid arguments", issues: zodIssues(error) } }),
      isError: true,
    };
  throw error;
}

async function answer(work: () => Promise<unknown>): Promise<CallToolResult> {
  try {
    return text(await work());
  } catch (error) {
    return failure(error);
  }
}

/** Numbers and flags as the query-string text the API's own schemas read. */
function asParams(values: Record<string, string | number | boolean | undefined>): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined) continue;
    params[key] = typeof value === "boolean" ? (value ? "1" : "0") : String(value);
  }
  return params;
}

/** An MCP server over this instance's data; `baseUrl` makes the links in answers absolute. */
export function createMcpServer(baseUrl: string): McpServer {
  const server = new McpServer(
    { name: MCP_SERVER_NAME, version: "1.0.0" },
    {
      instructions:
        "servebench keeps LLM inference benchmark runs (engine, version, flags, model, GPUs; output tok/s, TTFT and TPOT " +
        "per load level). Find runs with search_runs, read one with get_run, compare two or more with compare_runs " +
        "(verdict, deltas with their verdict and interval, what changed), follow nightly series with list_series and " +
        "get_series (changes with their last good and first bad run) and list_alerts. Cite the ids and urls answered.",
    },
  );

  server.registerTool(
    "search_runs",
    {
      title: "Search runs",
      description:
        "The run history, newest first unless sorted otherwise: filter by engine, model, GPU or tag, and search the " +
        "text of names, notes, commands and flags with q. Each run has its id, headline figures and url.",
      inputSchema: {
        q: z.string().max(200).optional().describe("Text searched in names, notes, commands and flags."),
        engine: z.string().max(64).optional().describe('Engine, e.g. "vllm", "sglang", "tensorrt-llm", "llama.cpp".'),
        model: z.string().max(200).optional(),
        gpu: z.string().max(200).optional(),
        tag: z.string().max(40).optional(),
        sort: z.enum(SORT_KEYS).optional(),
        dir: z.enum(["asc", "desc"]).optional(),
        page,
        per_page: perPage,
      },
      annotations: { title: "Search runs", ...READ_ONLY },
    },
    (args) => answer(() => searchRunsAnswer(ListQuerySchema.parse(asParams(args)), baseUrl)),
  );

  server.registerTool(
    "get_run",
    {
      title: "Read a run",
      description:
        "One run as stored: its configuration (engine, version, flags, env, model, hardware, workload) and every load " +
        "point's figures, with its validity checks and url. Per-request rows are left out.",
      inputSchema: { id: id.describe("The run's id, as search_runs or a url answers it.") },
      annotations: { title: "Read a run", ...READ_ONLY },
    },
    ({ id: runId }) => answer(() => runAnswer(runId, baseUrl)),
  );

  server.registerTool(
    "compare_runs",
    {
      title: "Compare runs",
      description:
        "Compare 2–12 runs as the compare page does: the verdict sentences (not-like-for-like first), what changed in " +
        "the configuration, and per metric and load level each run's value, change against the baseline in percent, " +
        "its verdict (better, worse, noise, inconclusive) and, where requests are stored, its 95% interval; and each " +
        "accuracy score (lm-eval, lighteval) against the baseline's with its noise band 2·√(se₁² + se₂²) — a faster " +
        "run whose accuracy fell beyond noise is marked trade_off. And capacity: each run's highest measured level meeting " +
        "each SLO tier (tiers), the GPUs, nodes, $/hour and kW a demand needs of each configuration, ranked (demand), " +
        "the most tok/s per user under a $/M-token ceiling (max_cost) and the most users within a GPU or power budget.",
      inputSchema: {
        runs: z.array(id).min(2).max(12).describe("Run ids; the first is the baseline unless baseline names another."),
        baseline: id.optional(),
        stat: z.enum(COMPARE_STATS).optional().describe("Latency statistic for TTFT and TPOT (default mean)."),
        noise_pct: z.number().min(0).max(100).optional().describe("Changes smaller than this are noise (percent)."),
        slo_ttft_ms: z.number().positive().optional(),
        slo_tpot_ms: z.number().positive().optional(),
        slo_stat: z.enum(COMPARE_STATS).optional(),
        price: z.string().max(400).optional().describe('$/GPU-hour: "2.5", or per GPU "H100:2.5,H200:3.1".'),
        tiers: z
          .string()
          .max(2_000)
          .optional()
          .describe('SLO tiers: presets "interactive,chat,agentic,batch" or "name:ttft=MS:tpot=MS:e2e=MS:p99".'),
        tier: z.string().max(40).optional().describe("The tier the planner sizes for (default: the first)."),
        demand: z.string().max(60).optional().describe('A demand to size for: "users:500", "rps:20" or "tok_s:50000".'),
        gpus_per_node: z.number().int().positive().max(1024).optional(),
        max_cost: z
          .number()
          .positive()
          .optional()
          .describe("$ per million output tokens: the most tok/s per user under it."),
        gpu_budget: z.number().positive().optional(),
        power_budget_kw: z.number().positive().optional(),
      },
      annotations: { title: "Compare runs", ...READ_ONLY },
    },
    (args) =>
      answer(() =>
        compareAnswer(
          parseCompareView(
            asParams({
              runs: args.runs.join(","),
              baseline: args.baseline,
              stat: args.stat,
              noise: args.noise_pct,
              slo_ttft: args.slo_ttft_ms,
              slo_tpot: args.slo_tpot_ms,
              slo_stat: args.slo_stat,
              price: args.price,
              tiers: args.tiers,
              tier: args.tier,
              demand: args.demand,
              gpus_per_node: args.gpus_per_node,
              max_cost: args.max_cost,
              gpu_budget: args.gpu_budget,
              power_budget_kw: args.power_budget_kw,
            }),
          ),
          baseUrl,
        ),
      ),
  );

  server.registerTool(
    "list_comparisons",
    {
      title: "List saved comparisons",
      description: "Comparisons the team saved and shared, newest first: slug, title, notes, runs and url.",
      inputSchema: { page, per_page: perPage },
      annotations: { title: "List saved comparisons", ...READ_ONLY },
    },
    (args) => answer(() => comparisonsAnswer({ page: args.page ?? 1, per_page: args.per_page ?? 25 }, baseUrl)),
  );

  server.registerTool(
    "get_comparison",
    {
      title: "Read a saved comparison",
      description: "A saved comparison by its slug (the /c/<slug> link), built as compare_runs builds one.",
      inputSchema: { slug: id },
      annotations: { title: "Read a saved comparison", ...READ_ONLY },
    },
    ({ slug }) => answer(() => savedComparisonAnswer(slug, baseUrl)),
  );

  server.registerTool(
    "list_series",
    {
      title: "List series",
      description:
        "Series of runs of one configuration over time (nightly benchmarks), most recently run first: each with its " +
        "latest headline figure, trend and open alerts.",
      inputSchema: {
        all: z.boolean().optional().describe("Include series of a single run (hidden by default)."),
        page,
        per_page: perPage,
      },
      annotations: { title: "List series", ...READ_ONLY },
    },
    (args) =>
      answer(() =>
        seriesListAnswer({ all: args.all ?? false, page: args.page ?? 1, per_page: args.per_page ?? 50 }, baseUrl),
      ),
  );

  server.registerTool(
    "get_series",
    {
      title: "Read a series",
      description:
        "A series' points, its detected changes (each with its last good and first bad run, the figures that moved " +
        "and what changed in the configuration) and its open alerts.",
      inputSchema: {
        id: id.describe("The series' id."),
        level: z.string().max(40).optional().describe('Load level to read the figures at: "c:64", "r:10" or "r:inf".'),
      },
      annotations: { title: "Read a series", ...READ_ONLY },
    },
    ({ id: seriesId, level }) =>
      answer(() => seriesAnswer(seriesId, SeriesViewQuerySchema.parse(asParams({ level })).level, baseUrl)),
  );

  server.registerTool(
    "list_alerts",
    {
      title: "List alerts",
      description:
        "Regression alerts of every series, newest first: open by default, or acknowledged, expected or all.",
      inputSchema: { status: z.enum([...ALERT_STATUSES, "all"]).optional(), page, per_page: perPage },
      annotations: { title: "List alerts", ...READ_ONLY },
    },
    (args) =>
      answer(() =>
        alertsAnswer({ status: args.status ?? "open", page: args.page ?? 1, per_page: args.per_page ?? 50 }, baseUrl),
      ),
  );

  return server;
}
