/**
 * Text that came from a server, made safe to print to a terminal or write into a markdown summary.
 *
 * A server (a servebench, or anything at the address given) chooses every byte of its answers: run names,
 * error messages, links, verdicts. Printed as they are, escape sequences in them could clear the screen, set
 * the window title, write to the clipboard (OSC 52), hide a link behind harmless text (OSC 8), overwrite a line
 * with `\r`, or reorder what is shown with bidi overrides. So everything the CLI prints or writes passes
 * through `terminalSafe`, which keeps the readable words and drops the rest.
 */

/**
 * Escape sequences, removed whole so their parameters do not show as litter. String sequences (OSC `ESC ]`,
 * DCS `ESC P`, SOS `ESC X`, PM `ESC ^`, APC `ESC _`, or their C1 forms) run up to their terminator, BEL or ST
 * (`ESC \` or U+009C); one left unterminated loses only its introducer (as an escape below), which is enough:
 * without ESC no terminal reads the rest as a command. The text between holds no control character, so
 * each attempt stops at the next one and the search stays linear in the text's length.
 */
const ESCAPE_SEQUENCE =
  // One literal (the regex budget test reads every pattern from the source), three alternatives in turn: the
  // string sequence above; CSI (`ESC [` or U+009B: parameter bytes, intermediate bytes, one final byte); any
  // other escape (ESC, intermediate bytes, one final byte: `ESC c`, `ESC 7`, `ESC ( B`…).
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
  /(?:\u001b[\]PX^_]|[\u0090\u0098\u009d\u009e\u009f])[^\u0000-\u001f\u007f-\u009f]*(?:\u0007|\u001b\\|\u009c)|(?:\u001b\[|\u009b)[\u0030-\u003f]*[\u0020-\u002f]*[\u0040-\u007e]|\u001b[\u0020-\u002f]*[\u0030-\u007e]/g;

/**
 * What is left once the sequences are gone: C0 controls but newline and tab (a lone ESC, `\r`, BEL, backspace
 * included), DEL, C1 controls, and the bidi controls (embeddings, overrides, isolates, marks).
 */
const CONTROL_CHARACTER =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** The Unicode line and paragraph separators: some terminals and viewers break the line, others do not. */
const LINE_SEPARATOR = /[\u2028\u2029]/g;

/**
 * `text` without terminal controls: readable words, newlines and tabs stay. Idempotent. A value that is not a
 * string (a server may send anything where a string belongs) is printed as String() writes it.
 */
export function terminalSafe(text: string): string {
  return String(text).replace(ESCAPE_SEQUENCE, "").replace(CONTROL_CHARACTER, "").replace(LINE_SEPARATOR, "\n");
}

/**
 * Characters JSON.stringify leaves as they are (it escapes only U+0000–U+001F, `"` and `\`) that a terminal
 * may still act on: DEL, C1 controls, bidi controls, line separators.
 */
const JSON_UNESCAPED_CONTROL = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;

/**
 * `value` as JSON that is safe to print: the same data, every control character written as a `\uXXXX` escape.
 * Outside strings JSON.stringify writes only ASCII, so each such character is inside a string, where the
 * escape means the same character.
 */
export function terminalSafeJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(
    JSON_UNESCAPED_CONTROL,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
