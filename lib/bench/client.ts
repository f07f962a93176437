/**
 * The HTTP side of the benchmark: node:http with one keep-alive agent whose pool holds as many connections
 * as the highest concurrency level, so no request waits for a socket, and a streaming request that notes
 * when every chunk of generated text arrived (performance.now(), a monotonic clock).
 */
import http from "node:http";
import https from "node:https";
import type { RequestRecord } from "./metrics";
import { type Endpoint, errorMessageOf, readChunk, SseParser } from "./sse";

export interface HttpPool {
  agent: http.Agent;
  close(): void;
}

export function createPool(url: URL, maxConnections: number): HttpPool {
  const options = { keepAlive: true, maxSockets: maxConnections, maxFreeSockets: maxConnections };
  const agent = url.protocol === "https:" ? new https.Agent(options) : new http.Agent(options);
  return { agent, close: () => agent.destroy() };
}

function transportOf(url: URL): typeof http | typeof https {
  return url.protocol === "https:" ? https : http;
}

function flat(text: string, max: number): string {
  const oneLine = text.replace(/\s+/g, " ").trim();
  return oneLine.length > max ? `${oneLine.slice(0, max)}…` : oneLine;
}

/** A connection-level error in words: "connection refused (127.0.0.1:8000)". */
export function describeNetworkError(error: unknown, url: URL): string {
  const code =
    typeof error === "object" && error !== null && "code" in error ? String((error as { code: unknown }).code) : "";
  const message = error instanceof Error ? error.message : String(error);
  switch (code) {
    case "ECONNREFUSED":
      return `connection refused (${url.host})`;
    case "ECONNRESET":
      return message === "socket hang up"
        ? "the server closed the connection before answering"
        : "connection reset by the server";
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `host not found: ${url.hostname}`;
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return `host unreachable: ${url.host}`;
    default:
      return message || code || "network error";
  }
}

function httpErrorText(status: number, statusMessage: string | undefined, body: string): string {
  let detail: string | null = null;
  try {
    detail = errorMessageOf(JSON.parse(body));
  } catch {
    // not JSON: the raw excerpt says it
  }
  const text = flat(detail ?? body, 200);
  return `HTTP ${status}${statusMessage ? ` ${statusMessage}` : ""}${text ? `: ${text}` : ""}`;
}

export type JsonAnswer = { ok: true; status: number; body: unknown } | { ok: false; status?: number; error: string };
export type TextAnswer = { ok: true; status: number; text: string } | { ok: false; status?: number; error: string };

/** GET a document as text; any failure is an answer, never a throw. A body past `maxBytes` is a failure. */
export function getText(
  pool: HttpPool,
  url: URL,
  headers: Record<string, string>,
  timeoutMs: number,
  maxBytes = 4_000_000,
  accept = "application/json",
): Promise<TextAnswer> {
  return new Promise((resolve) => {
    let settled = false;
    const settle = (answer: TextAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(answer);
    };
    const request = transportOf(url).request(url, {
      method: "GET",
      agent: pool.agent,
      headers: { accept, ...headers },
    });
    const timer = setTimeout(() => {
      settle({ ok: false, error: `no answer within ${timeoutMs / 1000} s` });
      request.destroy();
    }, timeoutMs);
    request.on("error", (error) => settle({ ok: false, error: describeNetworkError(error, url) }));
    request.on("response", (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const status = response.statusCode ?? 0;
      response.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size <= maxBytes) chunks.push(chunk);
        else if (status === 200) {
          settle({ ok: false, status, error: `the answer is larger than ${maxBytes / 1_000_000} MB` });
          request.destroy();
        }
      });
      response.on("error", (error) => settle({ ok: false, error: describeNetworkError(error, url) }));
      response.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        if (status !== 200) {
          settle({ ok: false, status, error: httpErrorText(status, response.statusMessage, text) });
          return;
        }
        settle({ ok: true, status, text });
      });
    });
    request.end();
  });
}

/** GET a JSON document; any failure is an answer, never a throw (the probes are best-effort). */
export async function getJson(
  pool: HttpPool,
  url: URL,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<JsonAnswer> {
  const answer = await getText(pool, url, headers, timeoutMs);
  if (!answer.ok) return answer;
  try {
    return { ok: true, status: answer.status, body: JSON.parse(answer.text) as unknown };
  } catch {
    return { ok: false, status: answer.status, error: "the answer is not JSON" };
  }
}

export interface StreamRequestInput {
  url: URL;
  endpoint: Endpoint;
  /** The JSON request body. */
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  /** Aborting it cuts the request off: the record is "aborted", neither completed nor failed. */
  signal?: AbortSignal;
  /** Called for every chunk of generated text, for the live tok/s. */
  onText?: () => void;
}

/**
 * Sends one streaming request and times it. Never throws: every failure (refused, HTTP error, malformed
 * event, a stream that stops before [DONE], timeout, reset) is a failed record with its reason.
 */
export function streamRequest(pool: HttpPool, input: StreamRequestInput): Promise<RequestRecord> {
  const { url, endpoint, signal, timeoutMs } = input;
  return new Promise((resolve) => {
    const start = performance.now();
    const record: RequestRecord = { status: "failed", start_ms: start, end_ms: start, text_chunk_ms: [] };
    if (signal?.aborted) {
      resolve({ ...record, status: "aborted", error: "interrupted" });
      return;
    }
    let settled = false;
    let finishReasonSeen = false;
    const chunkCount = () => `${record.text_chunk_ms.length} text chunk${record.text_chunk_ms.length === 1 ? "" : "s"}`;

    const settle = (status: RequestRecord["status"], error?: string, at = performance.now()) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      record.status = status;
      if (error !== undefined) record.error = error;
      record.end_ms = at;
      resolve(record);
    };

    const request = transportOf(url).request(url, {
      method: "POST",
      agent: pool.agent,
      headers: {
        "content-type": "application/json",
        "content-length": String(Buffer.byteLength(input.body)),
        accept: "text/event-stream",
        ...input.headers,
      },
    });
    const timer = setTimeout(() => {
      const seconds = timeoutMs / 1000;
      settle(
        "failed",
        record.text_chunk_ms.length === 0
          ? `no first token within ${seconds} s (timeout)`
          : `timed out after ${seconds} s (${chunkCount()} received)`,
      );
      request.destroy();
    }, timeoutMs);
    const onAbort = () => {
      settle("aborted", "interrupted");
      request.destroy();
    };
    signal?.addEventListener("abort", onAbort, { once: true });

    let streaming = false;
    request.on("error", (error) => {
      const reason = describeNetworkError(error, url);
      settle("failed", streaming ? `${reason} mid-stream (after ${chunkCount()})` : reason);
    });
    request.on("response", (response) => {
      const status = response.statusCode ?? 0;
      if (status !== 200) {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size <= 8_000) chunks.push(chunk);
        });
        const fail = () =>
          settle("failed", httpErrorText(status, response.statusMessage, Buffer.concat(chunks).toString("utf8")));
        response.on("end", fail);
        response.on("close", fail);
        response.on("error", fail);
        return;
      }
      const contentType = String(response.headers["content-type"] ?? "");
      if (contentType.includes("application/json")) {
        settle(
          "failed",
          'the server answered with one JSON document instead of an event stream (does it support "stream": true?)',
        );
        response.on("error", () => {});
        response.resume();
        return;
      }
      streaming = true;
      const decoder = new TextDecoder();
      const parser = new SseParser();
      const take = (events: string[], at: number) => {
        for (const data of events) {
          if (settled) return;
          const chunk = readChunk(data, endpoint);
          if (chunk.kind === "error") {
            settle("failed", `${chunk.message} (after ${chunkCount()})`, at);
            request.destroy();
            return;
          }
          if (chunk.kind === "done") {
            if (record.text_chunk_ms.length === 0) settle("failed", "the stream ended without any generated text", at);
            else settle("ok", undefined, at);
            // A server that keeps the response open after [DONE] would hold a pooled connection forever.
            setTimeout(() => {
              if (!response.complete) response.destroy();
            }, 1_000).unref();
            return;
          }
          if (chunk.text !== "") {
            record.text_chunk_ms.push(at - start);
            input.onText?.();
          }
          if (chunk.finishReason !== null) finishReasonSeen = true;
          if (chunk.usage?.completion_tokens !== undefined) record.usage_output_tokens = chunk.usage.completion_tokens;
          if (chunk.usage?.prompt_tokens !== undefined) record.usage_input_tokens = chunk.usage.prompt_tokens;
        }
      };
      response.on("data", (data: Buffer) => {
        // One timestamp per network read: events that arrived together are timed together.
        const at = performance.now();
        take(parser.push(decoder.decode(data, { stream: true })), at);
      });
      response.on("end", () => {
        const at = performance.now();
        take([...parser.push(decoder.decode()), ...parser.end()], at);
        if (settled) return;
        // Some servers close the stream after the finish chunk without "[DONE]"; the generation was complete.
        if (finishReasonSeen && record.text_chunk_ms.length > 0) settle("ok", undefined, at);
        else settle("failed", `the stream ended before [DONE] (after ${chunkCount()})`, at);
      });
      response.on("error", (error) =>
        settle("failed", `${describeNetworkError(error, url)} mid-stream (after ${chunkCount()})`),
      );
      response.on("close", () => settle("failed", `the connection closed mid-stream (after ${chunkCount()})`));
    });
    request.end(input.body);
  });
}
