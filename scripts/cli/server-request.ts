/**
 * One request to a servebench server, bounded in time and in size: the whole exchange, from connecting to the
 * answer's last byte, has a time limit, and the answer is read up to a cap, so a server that is slow, drips
 * its answer or sends gigabytes ends the command with a clear message (exit 1) instead of hanging it or
 * filling its memory.
 */

/** Why a request to the server came to nothing; the message is ready to print after "servebench <command>: ". */
export class ServerRequestError extends Error {}

/** 16 MB: an upload's answer holds the new runs' ids, links and verdicts, a few kB even for many runs. */
export const UPLOAD_ANSWER_MAX_BYTES = 16_000_000;
/**
 * 128 MB: a dry run's answer echoes the documents read from the upload (at most 1,001 points each), so it
 * grows with the upload, whose body the server takes up to 100 MB by default; the preview of that is smaller.
 */
export const PREVIEW_ANSWER_MAX_BYTES = 128_000_000;
/**
 * 64 MB: one stored run. The run format allows 1,000 points and 100,000 per-request rows of 8 numbers each,
 * about 15 MB as JSON numbers of full precision, and 64 MB leaves room for everything else a run holds.
 */
export const RUN_ANSWER_MAX_BYTES = 64_000_000;

/** 120 s for an upload: sending a large upload over a slow link, and the server reads it for up to 60 s. */
export const UPLOAD_TIMEOUT_MS = 120_000;
/** 30 s for a read: a run is one query on the server. */
export const READ_TIMEOUT_MS = 30_000;

/** setTimeout's longest delay (2^31 − 1 ms, about 24.8 days): a longer one would fire at once. */
const MAX_TIMEOUT_SECONDS = Math.floor((2 ** 31 - 1) / 1000);

export class TimeoutOptionError extends Error {}

/** The ms of a `--timeout SECONDS` option (`given`, as typed), or `defaultMs` when it was not given. */
export function timeoutMsFrom(option: string, given: string | undefined, defaultMs: number): number {
  if (given === undefined) return defaultMs;
  const seconds = /^\d+(\.\d+)?$/.test(given.trim()) ? Number(given) : Number.NaN;
  if (!(seconds > 0 && seconds <= MAX_TIMEOUT_SECONDS)) {
    throw new TimeoutOptionError(
      `${option} must be a number of seconds above 0 and at most ${MAX_TIMEOUT_SECONDS}, not "${given}"`,
    );
  }
  return Math.max(1, Math.round(seconds * 1000));
}

export interface ServerAnswer {
  status: number;
  ok: boolean;
  /** The answer's body, decoded as UTF-8; not yet made safe to print (server-text.ts does that). */
  text: string;
}

export interface RequestLimits {
  /** The server as the user named it, for the messages. */
  base: string;
  timeoutMs: number;
  /** The option that sets `timeoutMs`, named in the message when it runs out. */
  timeoutOption: string;
  maxAnswerBytes: number;
  /**
   * The caller's own reason to stop (an upload the server stopped taking): it ends the request, and its
   * reason is what is thrown when that is a ServerRequestError.
   */
  signal?: AbortSignal;
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

function causeOf(error: unknown): string {
  return error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : "";
}

/** `fetch(url, init)`, its answer read whole within `limits`; throws ServerRequestError when that fails. */
export async function requestServer(url: string, init: RequestInit, limits: RequestLimits): Promise<ServerAnswer> {
  const controller = new AbortController();
  let timedOut = false;
  // A timer of our own rather than AbortSignal.timeout, whose timer does not keep the process alive.
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, limits.timeoutMs);
  const timeoutError = () =>
    new ServerRequestError(
      `no complete answer from ${limits.base} within ${seconds(limits.timeoutMs)}; if the server is only slow, give it longer with ${limits.timeoutOption} SECONDS`,
    );
  const stoppedError = (): ServerRequestError | null => {
    if (!limits.signal?.aborted) return null;
    const reason: unknown = limits.signal.reason;
    return reason instanceof ServerRequestError
      ? reason
      : new ServerRequestError(`stopped before ${limits.base} answered`);
  };
  const stop = () => controller.abort();
  if (limits.signal?.aborted) controller.abort();
  else limits.signal?.addEventListener("abort", stop, { once: true });
  const tooLargeError = () =>
    new ServerRequestError(
      `the server's answer is larger than ${limits.maxAnswerBytes / 1_000_000} MB; is ${limits.base} a servebench?`,
    );
  try {
    let response: Response;
    try {
      response = await fetch(url, { ...init, signal: controller.signal });
    } catch (error) {
      if (timedOut) throw timeoutError();
      throw stoppedError() ?? new ServerRequestError(`cannot reach ${limits.base}${causeOf(error)}`);
    }
    const declaredBytes = Number(response.headers.get("content-length") ?? Number.NaN);
    if (declaredBytes > limits.maxAnswerBytes) {
      controller.abort();
      throw tooLargeError();
    }
    const chunks: Uint8Array[] = [];
    let receivedBytes = 0;
    if (response.body) {
      const reader = response.body.getReader();
      for (;;) {
        let next: ReadableStreamReadResult<Uint8Array>;
        try {
          next = await reader.read();
        } catch (error) {
          if (timedOut) throw timeoutError();
          throw stoppedError() ?? new ServerRequestError(`${limits.base} broke off its answer${causeOf(error)}`);
        }
        if (next.done) break;
        receivedBytes += next.value.byteLength;
        if (receivedBytes > limits.maxAnswerBytes) {
          // Closes the connection: the rest of the answer is never read.
          controller.abort();
          throw tooLargeError();
        }
        chunks.push(next.value);
      }
    }
    return { status: response.status, ok: response.ok, text: new TextDecoder().decode(Buffer.concat(chunks)) };
  } finally {
    clearTimeout(timer);
    limits.signal?.removeEventListener("abort", stop);
  }
}

/** Where a command finds the server when it names none: `--url`, else `$SERVEBENCH_URL`, else `npm start`'s. */
export const DEFAULT_SERVER_URL = "http://localhost:3000";

/** The server a command talks to (`--url` as given, else the environment's, else the default), without a trailing slash. */
export function serverBase(given: string | undefined, env: Partial<Record<string, string>> = process.env): string {
  return (given ?? env.SERVEBENCH_URL ?? DEFAULT_SERVER_URL).replace(/(?<!\/)\/+$/, "");
}
