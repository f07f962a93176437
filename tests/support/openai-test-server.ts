/**
 * A small OpenAI-compatible server for the benchmark runner's tests (not a feature): it streams tokens with
 * a set time to first token and interval between tokens, holds at most `maxConcurrent` requests in
 * generation (the rest queue, and their queueing shows in TTFT as on a real server), sends usage when asked,
 * answers /v1/models and, when configured, SGLang's /get_server_info and vLLM's /version, and fails on
 * purpose in the ways real servers do. Token k of a request is due at slot + TTFT + k × interval, on an
 * absolute schedule, so timer lateness does not add up.
 *
 * It records when every generation request arrived, so open-loop arrivals can be measured against the rate
 * they were sent at; and it serves a Prometheus /metrics, with vLLM's or SGLang's names, whose figures follow
 * the load it is under: running and waiting requests are its slots and queue at the moment of the scrape,
 * KV-cache usage is `kvUsagePerRequest` per running request, a request that found every slot taken counts
 * as a preemption, prefix-cache hits are the prompt words a request shares with an earlier prompt's start,
 * speculative decoding accepts `speculative.accepted` of `speculative.tokens` drafted tokens per step, and
 * its TTFT / TPOT / ITL histograms observe what each request took on the server's side.
 */
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";

export type Fault =
  /** Answer 500 with an OpenAI-style error body. */
  | "http-500"
  /** Send two tokens, then an event whose data is not JSON. */
  | "malformed-sse"
  /** Send half the tokens, then end the response cleanly: no finish chunk, no [DONE]. */
  | "truncate"
  /** Send the headers and the role chunk, then nothing. */
  | "no-first-token"
  /** Send two tokens, then reset the connection. */
  | "reset"
  /** Ignore "stream": true and answer with one JSON completion. */
  | "json-response";

export interface TestServerSettings {
  ttftMs: number;
  /** Interval between consecutive tokens. */
  itlMs: number;
  /** Tokens a response has when max_tokens allows (ignore_eos makes it max_tokens). */
  tokens: number;
  tokensPerChunk: number;
  /** Requests generating at once; more wait for a slot. */
  maxConcurrent: number;
  /** Whether the stream ends with a usage chunk when the request asks for one. */
  usage: boolean;
  models: { id: string; max_model_len?: number }[];
  /** The `owned_by` of every model in /v1/models ("vllm" as vLLM writes it); null leaves the field out. */
  ownedBy: string | null;
  /** The body of GET /get_server_info (SGLang); null answers 404. */
  serverInfo: Record<string, unknown> | null;
  /** GET /version answers {"version": this} (vLLM); null answers 404. */
  version: string | null;
  /** A fault for every request, or per request by its arrival index (0-based, /v1 generation requests only). */
  fault: Fault | null | ((index: number) => Fault | null);
  /** When set, generation requests need "Authorization: Bearer <apiKey>". */
  apiKey: string | null;
  /** GET /metrics with vLLM's or SGLang's metric names; null answers 404. */
  metrics: "vllm" | "sglang" | null;
  /** Share of the KV cache each running request holds (usage is capped at 1). */
  kvUsagePerRequest: number;
  /** Speculative decoding: drafted tokens per step and how many of them are accepted; null: off. */
  speculative: { tokens: number; accepted: number } | null;
  /**
   * A DCGM exporter's power metrics for `gpus` GPUs each drawing `watts`: the gauge DCGM_FI_DEV_POWER_USAGE and the
   * counter DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION (mJ), which advances by watts × elapsed time. Served with /metrics
   * (as a server that re-exports them) and alone at /dcgm/metrics (as an exporter of its own); null: neither.
   */
  dcgm: { gpus: number; watts: number } | null;
}

export interface TestServerStats {
  requests: number;
  inFlight: number;
  maxInFlight: number;
  /** Tokens sent in responses that ended with [DONE]. */
  completedTokens: number;
  bodies: Record<string, unknown>[];
  authorization: (string | undefined)[];
  /** performance.now() when each generation request arrived (its body fully read), in arrival order. */
  arrivals_ms: number[];
  /** GET /metrics answered. */
  scrapes: number;
}

export interface OpenAITestServer {
  port: number;
  /** http://127.0.0.1:<port>/v1 */
  baseUrl: string;
  settings: TestServerSettings;
  stats: TestServerStats;
  update(settings: Partial<TestServerSettings>): void;
  resetStats(): void;
  close(): Promise<void>;
}

export const DEFAULT_TEST_SERVER_SETTINGS: TestServerSettings = {
  ttftMs: 100,
  itlMs: 20,
  tokens: 32,
  tokensPerChunk: 1,
  maxConcurrent: Number.POSITIVE_INFINITY,
  usage: true,
  models: [{ id: "test-model", max_model_len: 4096 }],
  ownedBy: "vllm",
  serverInfo: null,
  version: null,
  fault: null,
  apiKey: null,
  metrics: null,
  kvUsagePerRequest: 0.1,
  speculative: null,
  dcgm: null,
};

function emptyStats(): TestServerStats {
  return {
    requests: 0,
    inFlight: 0,
    maxInFlight: 0,
    completedTokens: 0,
    bodies: [],
    authorization: [],
    arrivals_ms: [],
    scrapes: 0,
  };
}

function words(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

function promptText(body: Record<string, unknown>): string {
  if (typeof body.prompt === "string") return body.prompt;
  if (Array.isArray(body.messages)) {
    return body.messages
      .map((message: unknown) => {
        const content = (message as { content?: unknown }).content;
        return typeof content === "string" ? content : "";
      })
      .join(" ");
  }
  return "";
}

function promptTokens(body: Record<string, unknown>): number {
  return words(promptText(body));
}

/** A Prometheus histogram's running sum and count (buckets are not needed by what reads them). */
interface Histogram {
  sum: number;
  count: number;
}

/** The server-side counters behind /metrics. They only grow, as Prometheus counters do. */
interface MetricCounters {
  preemptions: number;
  prefixQueries: number;
  prefixHits: number;
  drafts: number;
  draftTokens: number;
  acceptedTokens: number;
  ttft: Histogram;
  tpot: Histogram;
  itl: Histogram;
}

function emptyCounters(): MetricCounters {
  return {
    preemptions: 0,
    prefixQueries: 0,
    prefixHits: 0,
    drafts: 0,
    draftTokens: 0,
    acceptedTokens: 0,
    ttft: { sum: 0, count: 0 },
    tpot: { sum: 0, count: 0 },
    itl: { sum: 0, count: 0 },
  };
}

/** Words a prompt shares with the start of the most similar earlier prompt: what a prefix cache would hit. */
function sharedPrefixWords(prompt: string[], earlier: readonly string[][]): number {
  let best = 0;
  for (const other of earlier) {
    let shared = 0;
    while (shared < prompt.length && shared < other.length && prompt[shared] === other[shared]) shared += 1;
    best = Math.max(best, shared);
  }
  return best;
}

function exposition(
  names: "vllm" | "sglang",
  state: { running: number; waiting: number; kvUsage: number },
  counters: MetricCounters,
): string {
  const model = 'model_name="test-model"';
  const lines: string[] = [];
  const metric = (name: string, type: string, value: number, labels = model) => {
    lines.push(`# HELP ${name} test server metric`, `# TYPE ${name} ${type}`, `${name}{${labels}} ${value}`);
  };
  const histogram = (name: string, h: Histogram) => {
    lines.push(
      `# TYPE ${name} histogram`,
      `${name}_bucket{le="+Inf",${model}} ${h.count}`,
      `${name}_sum{${model}} ${h.sum}`,
      `${name}_count{${model}} ${h.count}`,
    );
  };
  if (names === "vllm") {
    metric("vllm:num_requests_running", "gauge", state.running, `${model},engine="0"`);
    metric("vllm:num_requests_waiting", "gauge", state.waiting, `${model},engine="0"`);
    metric("vllm:kv_cache_usage_perc", "gauge", state.kvUsage, `${model},engine="0"`);
    metric("vllm:num_preemptions_total", "counter", counters.preemptions);
    metric("vllm:prefix_cache_queries_total", "counter", counters.prefixQueries);
    metric("vllm:prefix_cache_hits_total", "counter", counters.prefixHits);
    if (counters.drafts > 0) {
      metric("vllm:spec_decode_num_drafts_total", "counter", counters.drafts);
      metric("vllm:spec_decode_num_draft_tokens_total", "counter", counters.draftTokens);
      metric("vllm:spec_decode_num_accepted_tokens_total", "counter", counters.acceptedTokens);
    }
    histogram("vllm:time_to_first_token_seconds", counters.ttft);
    histogram("vllm:request_time_per_output_token_seconds", counters.tpot);
    histogram("vllm:inter_token_latency_seconds", counters.itl);
  } else {
    metric("sglang:num_running_reqs", "gauge", state.running);
    metric("sglang:num_queue_reqs", "gauge", state.waiting);
    metric("sglang:token_usage", "gauge", state.kvUsage);
    metric("sglang:num_retracted_requests_total", "counter", counters.preemptions);
    metric("sglang:prompt_tokens_total", "counter", counters.prefixQueries);
    if (counters.prefixHits > 0) metric("sglang:cached_tokens_total", "counter", counters.prefixHits);
    // SGLang always exposes its speculative gauges, at 0 when speculative decoding is off.
    const length = counters.drafts > 0 ? 1 + counters.acceptedTokens / counters.drafts : 0;
    const rate = counters.draftTokens > 0 ? counters.acceptedTokens / counters.draftTokens : 0;
    metric("sglang:spec_accept_length", "gauge", length);
    metric("sglang:spec_accept_rate", "gauge", rate);
    histogram("sglang:time_to_first_token_seconds", counters.ttft);
    histogram("sglang:inter_token_latency_seconds", counters.itl);
  }
  return `${lines.join("\n")}\n`;
}

/**
 * DCGM's power gauge and energy counter, one series per GPU as dcgm-exporter labels them. The counter starts at an
 * arbitrary reading (a real one counts from when the driver loaded) and grows by W × ms = mJ.
 */
function dcgmExposition(dcgm: { gpus: number; watts: number }, elapsedMs: number): string {
  const lines = ["# HELP DCGM_FI_DEV_POWER_USAGE Power draw (in W).", "# TYPE DCGM_FI_DEV_POWER_USAGE gauge"];
  const labels = (gpu: number) =>
    `gpu="${gpu}",UUID="GPU-test-${gpu}",pci_bus_id="00000000:0${gpu}:00.0",device="nvidia${gpu}",modelName="Test GPU",Hostname="test"`;
  for (let gpu = 0; gpu < dcgm.gpus; gpu += 1) lines.push(`DCGM_FI_DEV_POWER_USAGE{${labels(gpu)}} ${dcgm.watts}`);
  lines.push(
    "# HELP DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION Total energy consumption since boot (in mJ).",
    "# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter",
  );
  for (let gpu = 0; gpu < dcgm.gpus; gpu += 1)
    lines.push(
      `DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{${labels(gpu)}} ${Math.round(5_000_000_000 + dcgm.watts * elapsedMs)}`,
    );
  return `${lines.join("\n")}\n`;
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

export async function startOpenAITestServer(initial: Partial<TestServerSettings> = {}): Promise<OpenAITestServer> {
  const settings: TestServerSettings = { ...DEFAULT_TEST_SERVER_SETTINGS, ...initial };
  let stats = emptyStats();
  let counters = emptyCounters();
  const recentPrompts: string[][] = [];
  let arrivals = 0;
  let active = 0;
  const startedAt = performance.now();
  const queue: (() => void)[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const sockets = new Set<Socket>();

  // Runs `fn` once `performance.now()` has reached `dueAt`, never before: libuv keeps a cached millisecond clock,
  // so a plain setTimeout can fire up to a millisecond early, and the figures a test expects (TTFT ≥ ttftMs)
  // would then be short by that much. `onTimer` tracks each timer armed so a finished request can cancel it.
  const at = (dueAt: number, fn: () => void, onTimer: (timer: NodeJS.Timeout, armed: boolean) => void) => {
    const arm = () => {
      const timer = setTimeout(
        () => {
          timers.delete(timer);
          onTimer(timer, false);
          if (performance.now() < dueAt) arm();
          else fn();
        },
        Math.max(0, Math.ceil(dueAt - performance.now())),
      );
      timers.add(timer);
      onTimer(timer, true);
    };
    arm();
  };
  const acquire = (start: () => void) => {
    if (active < settings.maxConcurrent) {
      active += 1;
      start();
    } else {
      // Every slot taken: the stand-in for a preemption, so the counter follows the load.
      counters.preemptions += 1;
      queue.push(start);
    }
  };
  const release = () => {
    const next = queue.shift();
    if (next) next();
    else active -= 1;
  };

  const generate = (
    req: http.IncomingMessage,
    res: http.ServerResponse,
    body: Record<string, unknown>,
    chat: boolean,
  ) => {
    const index = arrivals++;
    const arrivedAt = performance.now();
    stats.arrivals_ms.push(arrivedAt);
    stats.requests += 1;
    stats.bodies.push(body);
    stats.authorization.push(req.headers.authorization);
    if (settings.apiKey !== null && req.headers.authorization !== `Bearer ${settings.apiKey}`) {
      json(res, 401, { error: { message: "invalid API key", type: "AuthenticationError", code: 401 } });
      return;
    }
    if (!settings.models.some((model) => model.id === body.model)) {
      json(res, 404, {
        error: { message: `The model \`${String(body.model)}\` does not exist.`, type: "NotFoundError", code: 404 },
      });
      return;
    }
    const fault = typeof settings.fault === "function" ? settings.fault(index) : settings.fault;
    if (fault === "http-500") {
      json(res, 500, { error: { message: "simulated internal error", type: "InternalServerError", code: 500 } });
      return;
    }
    if (fault === "json-response") {
      json(res, 200, {
        id: `cmpl-${index}`,
        object: "chat.completion",
        choices: [{ index: 0, message: { role: "assistant", content: "tok0 " }, finish_reason: "stop" }],
      });
      return;
    }
    const maxTokens = typeof body.max_tokens === "number" ? body.max_tokens : 16;
    const tokens = body.ignore_eos === true ? maxTokens : Math.min(settings.tokens, maxTokens);
    const wantsUsage =
      settings.usage && (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
    const id = `cmpl-${index}`;
    const created = Math.floor(Date.now() / 1000);
    const object = chat ? "chat.completion.chunk" : "text_completion";
    const choice = (text: string | null, finish: string | null) =>
      chat
        ? { index: 0, delta: text === null ? {} : { content: text }, logprobs: null, finish_reason: finish }
        : { index: 0, text: text ?? "", logprobs: null, finish_reason: finish };
    const send = (payload: unknown) =>
      res.write(`data: ${typeof payload === "string" ? payload : JSON.stringify(payload)}\n\n`);

    let started = false;
    let finished = false;
    const pending = new Set<NodeJS.Timeout>();
    const stop = () => {
      if (finished) return;
      finished = true;
      // A request that left while queued holds no slot; its turn in the queue gives the slot on.
      if (!started) return;
      for (const timer of pending) {
        clearTimeout(timer);
        timers.delete(timer);
      }
      stats.inFlight -= 1;
      release();
    };
    res.on("close", stop);

    acquire(() => {
      if (finished || res.destroyed) {
        release();
        return;
      }
      started = true;
      stats.inFlight += 1;
      stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
      const slotAt = performance.now();
      const promptWords = promptText(body).split(/\s+/).filter(Boolean);
      counters.prefixQueries += promptWords.length;
      counters.prefixHits += sharedPrefixWords(promptWords, recentPrompts);
      recentPrompts.push(promptWords);
      if (recentPrompts.length > 64) recentPrompts.shift();
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      // vLLM opens a chat stream with the assistant's role and empty content: not a token.
      if (chat)
        send({
          id,
          object,
          created,
          model: body.model,
          choices: [{ index: 0, delta: { role: "assistant", content: "" }, logprobs: null, finish_reason: null }],
        });
      else res.flushHeaders();
      if (fault === "no-first-token") return;

      const chunks = Math.ceil(tokens / settings.tokensPerChunk);
      const cutAfter =
        fault === "truncate" ? Math.floor(chunks / 2) : fault === "malformed-sse" || fault === "reset" ? 2 : chunks;
      // One chunk at a time, each armed when the one before it went out: a server streams in order, and timers
      // armed all at once from a clock read in a loop the machine can stall between reads could fire out of order.
      const emit = (chunk: number) => {
        const firstToken = chunk * settings.tokensPerChunk;
        const count = Math.min(settings.tokensPerChunk, tokens - firstToken);
        const due = slotAt + settings.ttftMs + (firstToken + count - 1) * settings.itlMs;
        at(
          due,
          () => {
            if (finished) return;
            if (chunk === cutAfter) {
              if (fault === "truncate") {
                res.end();
              } else if (fault === "malformed-sse") {
                res.write('data: {"choices": [{"delta": {"content": "oops"\n\n');
                res.end();
              } else if (fault === "reset") {
                // A TCP reset, as when a server process dies mid-generation.
                res.socket?.resetAndDestroy();
              }
              stop();
              return;
            }
            const text = Array.from({ length: count }, (_, k) => `tok${firstToken + k} `).join("");
            const last = chunk === chunks - 1;
            send({ id, object, created, model: body.model, choices: [choice(text, null)] });
            if (!last) {
              emit(chunk + 1);
              return;
            }
            send({
              id,
              object,
              created,
              model: body.model,
              choices: [choice(null, tokens < maxTokens ? "stop" : "length")],
            });
            if (wantsUsage) {
              const prompt = promptTokens(body);
              send({
                id,
                object,
                created,
                model: body.model,
                choices: [],
                usage: { prompt_tokens: prompt, completion_tokens: tokens, total_tokens: prompt + tokens },
              });
            }
            send("[DONE]");
            stats.completedTokens += tokens;
            // The server's own view of the request: from its arrival (queueing included) to its tokens.
            const firstTokenAt = slotAt + settings.ttftMs;
            counters.ttft.sum += (firstTokenAt - arrivedAt) / 1000;
            counters.ttft.count += 1;
            if (tokens > 1) {
              counters.tpot.sum += settings.itlMs / 1000;
              counters.tpot.count += 1;
              counters.itl.sum += ((tokens - 1) * settings.itlMs) / 1000;
              counters.itl.count += tokens - 1;
            }
            if (settings.speculative) {
              // Each step proposes `tokens` drafts, accepts `accepted` of them and adds the target's own token.
              const steps = Math.ceil(tokens / (settings.speculative.accepted + 1));
              counters.drafts += steps;
              counters.draftTokens += steps * settings.speculative.tokens;
              counters.acceptedTokens += steps * settings.speculative.accepted;
            }
            res.end();
            stop();
          },
          (timer, armed) => {
            if (armed) pending.add(timer);
            else pending.delete(timer);
          },
        );
      };
      if (chunks > 0) emit(0);
    });
  };

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (req.method === "GET") {
      if (url.pathname === "/v1/models") {
        json(res, 200, {
          object: "list",
          data: settings.models.map((model) => ({
            id: model.id,
            object: "model",
            created: 0,
            ...(settings.ownedBy === null ? {} : { owned_by: settings.ownedBy }),
            root: model.id,
            ...(model.max_model_len ? { max_model_len: model.max_model_len } : {}),
          })),
        });
      } else if (url.pathname === "/get_server_info" && settings.serverInfo !== null) {
        json(res, 200, settings.serverInfo);
      } else if (url.pathname === "/version" && settings.version !== null) {
        json(res, 200, { version: settings.version });
      } else if (url.pathname === "/metrics" && (settings.metrics !== null || settings.dcgm !== null)) {
        stats.scrapes += 1;
        const running = stats.inFlight;
        let text =
          settings.metrics === null
            ? ""
            : exposition(
                settings.metrics,
                { running, waiting: queue.length, kvUsage: Math.min(1, running * settings.kvUsagePerRequest) },
                counters,
              );
        if (settings.dcgm !== null) text += dcgmExposition(settings.dcgm, performance.now() - startedAt);
        res.writeHead(200, { "content-type": "text/plain; version=0.0.4; charset=utf-8" });
        res.end(text);
      } else if (url.pathname === "/dcgm/metrics" && settings.dcgm !== null) {
        res.writeHead(200, { "content-type": "text/plain; version=0.0.4; charset=utf-8" });
        res.end(dcgmExposition(settings.dcgm, performance.now() - startedAt));
      } else {
        json(res, 404, { detail: "Not Found" });
      }
      return;
    }
    if (req.method === "POST" && (url.pathname === "/v1/chat/completions" || url.pathname === "/v1/completions")) {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        let body: Record<string, unknown>;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
        } catch {
          json(res, 400, { error: { message: "invalid JSON body", code: 400 } });
          return;
        }
        generate(req, res, body, url.pathname === "/v1/chat/completions");
      });
      return;
    }
    json(res, 404, { detail: "Not Found" });
  });
  server.on("connection", (socket) => {
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    port,
    baseUrl: `http://127.0.0.1:${port}/v1`,
    settings,
    get stats() {
      return stats;
    },
    update(partial) {
      Object.assign(settings, partial);
    },
    resetStats() {
      stats = emptyStats();
      counters = emptyCounters();
      recentPrompts.length = 0;
      arrivals = 0;
    },
    close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
