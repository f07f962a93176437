/** Server-sent events as OpenAI-compatible servers stream them, split any way the network splits them. */
import { describe, expect, it, test } from "vitest";
import { readChunk, SseParser } from "@/lib/bench/sse";

function feedAll(parts: string[]): string[] {
  const parser = new SseParser();
  const events = parts.flatMap((part) => parser.push(part));
  return [...events, ...parser.end()];
}

const STREAM =
  'data: {"choices":[{"delta":{"role":"assistant","content":""}}]}\n\n' +
  'data: {"choices":[{"delta":{"content":"Hello"}}]}\n\n' +
  ": keep-alive comment\n\n" +
  'data: {"choices":[{"delta":{"content":" world"}}]}\n\n' +
  "data: [DONE]\n\n";

describe("SseParser", () => {
  it("yields the data of every event and skips comments", () => {
    expect(feedAll([STREAM])).toEqual([
      '{"choices":[{"delta":{"role":"assistant","content":""}}]}',
      '{"choices":[{"delta":{"content":"Hello"}}]}',
      '{"choices":[{"delta":{"content":" world"}}]}',
      "[DONE]",
    ]);
  });

  it("gives the same events however the stream is split, one character at a time included", () => {
    const whole = feedAll([STREAM]);
    expect(feedAll(STREAM.split(""))).toEqual(whole);
    expect(feedAll([STREAM.slice(0, 37), STREAM.slice(37, 90), STREAM.slice(90)])).toEqual(whole);
  });

  test.each([
    ["\\r\\n", "\r\n"],
    ["\\r", "\r"],
  ])("accepts %s line endings, even split between two reads", (_label, eol) => {
    const text = STREAM.replace(/\n/g, eol);
    expect(feedAll([text])).toEqual(feedAll([STREAM]));
    // Every split point, so a "\r\n" cut in half is covered.
    for (let cut = 1; cut < text.length; cut += 7) {
      expect(feedAll([text.slice(0, cut), text.slice(cut)])).toEqual(feedAll([STREAM]));
    }
  });

  it("joins multi-line data with \\n, takes `data:` without a space, ignores other fields", () => {
    expect(feedAll(["event: message\nid: 7\ndata:first\ndata: second\nretry: 10\n\n"])).toEqual(["first\nsecond"]);
  });

  it("delivers an event that lacked only its closing blank line when the stream ends", () => {
    const parser = new SseParser();
    expect(parser.push('data: {"a":1}\n\ndata: [DONE]')).toEqual(['{"a":1}']);
    expect(parser.end()).toEqual(["[DONE]"]);
  });

  it("delivers nothing for a blank stream", () => {
    expect(feedAll(["\n\n\n", ": ping\n\n"])).toEqual([]);
  });
});

describe("readChunk", () => {
  it("reads a chat content delta", () => {
    expect(readChunk('{"choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}', "chat")).toEqual({
      kind: "chunk",
      text: "Hi",
      finishReason: null,
      usage: null,
    });
  });

  it("a role-only chunk carries no text: it is not the first token", () => {
    expect(readChunk('{"choices":[{"delta":{"role":"assistant","content":""}}]}', "chat")).toMatchObject({
      kind: "chunk",
      text: "",
    });
    expect(readChunk('{"choices":[{"delta":{"role":"assistant"}}]}', "chat")).toMatchObject({
      kind: "chunk",
      text: "",
    });
  });

  it("counts a reasoning model's thinking as generated text", () => {
    expect(readChunk('{"choices":[{"delta":{"reasoning_content":"Let me think"}}]}', "chat")).toMatchObject({
      text: "Let me think",
    });
    expect(readChunk('{"choices":[{"delta":{"reasoning":"Hmm","content":null}}]}', "chat")).toMatchObject({
      text: "Hmm",
    });
  });

  it("reads a completions chunk's text", () => {
    expect(readChunk('{"choices":[{"index":0,"text":" token","finish_reason":"length"}]}', "completions")).toEqual({
      kind: "chunk",
      text: " token",
      finishReason: "length",
      usage: null,
    });
  });

  it("reads the usage chunk that include_usage adds", () => {
    expect(
      readChunk('{"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":256,"total_tokens":268}}', "chat"),
    ).toEqual({
      kind: "chunk",
      text: "",
      finishReason: null,
      usage: { prompt_tokens: 12, completion_tokens: 256 },
    });
  });

  it("reads [DONE]", () => {
    expect(readChunk("[DONE]", "chat")).toEqual({ kind: "done" });
    expect(readChunk(" [DONE] ", "completions")).toEqual({ kind: "done" });
  });

  it("reports an error event with the server's message", () => {
    expect(readChunk('{"error":{"message":"out of KV cache","code":503}}', "chat")).toEqual({
      kind: "error",
      message: "the server reported an error mid-stream: out of KV cache",
    });
  });

  it("reports malformed data with an excerpt", () => {
    expect(readChunk('{"choices": [{"delta": {"content": "oops"', "chat")).toEqual({
      kind: "error",
      message: 'malformed SSE event (not JSON): "{"choices": [{"delta": {"content": "oops""',
    });
    expect(readChunk("[1,2]", "chat")).toEqual({
      kind: "error",
      message: 'malformed SSE event (not a JSON object): "[1,2]"',
    });
  });
});
