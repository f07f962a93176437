/**
 * Server-sent events from an OpenAI-compatible streaming response: an incremental parser that takes the
 * body as it arrives (events split across network reads, any line ending), and the reading of one event's
 * data as a chat or completions chunk.
 */

export type Endpoint = "chat" | "completions";

/** Splits a text stream into the `data` payloads of its events. Comments and other fields are skipped. */
export class SseParser {
  private buffer = "";
  private data: string[] = [];
  /** A chunk ended in "\r": a "\n" at the start of the next one belongs to the same line ending. */
  private afterCarriageReturn = false;

  /** Feeds decoded text; returns the data of every event it completed. */
  push(text: string): string[] {
    let input = text;
    if (this.afterCarriageReturn && input.startsWith("\n")) input = input.slice(1);
    this.afterCarriageReturn = input.endsWith("\r");
    this.buffer += input;
    const events: string[] = [];
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.buffer);
      if (!match) break;
      // A lone "\r" at the very end may be the first half of "\r\n": it still ends the line.
      const line = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      this.takeLine(line, events);
    }
    return events;
  }

  /** The stream ended: an event that lacked only its closing blank line is still delivered. */
  end(): string[] {
    const events: string[] = [];
    if (this.buffer !== "") this.takeLine(this.buffer, events);
    this.buffer = "";
    this.takeLine("", events);
    return events;
  }

  private takeLine(line: string, events: string[]): void {
    if (line === "") {
      if (this.data.length > 0) events.push(this.data.join("\n"));
      this.data = [];
      return;
    }
    if (line.startsWith(":")) return;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    if (field !== "data") return;
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    this.data.push(value);
  }
}

export interface Usage {
  prompt_tokens?: number;
  completion_tokens?: number;
}

export type StreamChunk =
  | { kind: "done" }
  | { kind: "error"; message: string }
  /** `text` is the generated text of this chunk ("" for a role-only, finish or usage chunk). */
  | { kind: "chunk"; text: string; finishReason: string | null; usage: Usage | null };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function excerpt(text: string, max = 120): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

function readUsage(value: unknown): Usage | null {
  if (!isRecord(value)) return null;
  const usage: Usage = {};
  if (typeof value.prompt_tokens === "number") usage.prompt_tokens = value.prompt_tokens;
  if (typeof value.completion_tokens === "number") usage.completion_tokens = value.completion_tokens;
  return usage.prompt_tokens === undefined && usage.completion_tokens === undefined ? null : usage;
}

/** The error message of an OpenAI-style error object (`{"error": {"message": …}}`, `{"message": …}`, `{"detail": …}`). */
export function errorMessageOf(body: unknown): string | null {
  if (!isRecord(body)) return null;
  const error = body.error;
  if (isRecord(error) && typeof error.message === "string") return error.message;
  if (typeof error === "string") return error;
  if (typeof body.message === "string") return body.message;
  if (typeof body.detail === "string") return body.detail;
  return null;
}

/**
 * One event's data as a chunk. Reasoning models stream their thinking as `reasoning_content` (or
 * `reasoning`) before `content`: those are generated tokens too, so they count as text.
 */
export function readChunk(data: string, endpoint: Endpoint): StreamChunk {
  const trimmed = data.trim();
  if (trimmed === "[DONE]") return { kind: "done" };
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch {
    return { kind: "error", message: `malformed SSE event (not JSON): "${excerpt(trimmed)}"` };
  }
  if (!isRecord(parsed))
    return { kind: "error", message: `malformed SSE event (not a JSON object): "${excerpt(trimmed)}"` };
  if (parsed.error !== undefined && parsed.error !== null) {
    return {
      kind: "error",
      message: `the server reported an error mid-stream: ${excerpt(errorMessageOf(parsed) ?? JSON.stringify(parsed.error), 300)}`,
    };
  }
  const usage = readUsage(parsed.usage);
  const choice = Array.isArray(parsed.choices) ? parsed.choices[0] : undefined;
  if (!isRecord(choice)) return { kind: "chunk", text: "", finishReason: null, usage };
  const finishReason = typeof choice.finish_reason === "string" ? choice.finish_reason : null;
  let text = "";
  if (endpoint === "completions") {
    if (typeof choice.text === "string") text = choice.text;
  } else if (isRecord(choice.delta)) {
    for (const key of ["reasoning_content", "reasoning", "content"]) {
      const value = choice.delta[key];
      if (typeof value === "string") text += value;
    }
  }
  return { kind: "chunk", text, finishReason, usage };
}
