/**
 * multipart/form-data (RFC 7578) over a body already in memory, each part a view into it: a 100 MB upload stays
 * 100 MB. (Response.formData() copies every file part into a Blob, and reading the Blob back copies it again.)
 */
import { AppError } from "@/lib/errors";

export interface FormPart {
  name: string;
  /** Set for a file part; null for a plain field. */
  filename: string | null;
  bytes: Uint8Array;
}

/** Parts in one body; an upload's files (at most 1,000) and its few context fields fit easily. */
export const MAX_PARTS = 2_000;
const MAX_HEADER_BYTES = 16_384;

const unreadable = (why: string) =>
  new AppError("bad_request", `The multipart body could not be read: ${why}; check its boundary and encoding.`);

/** The boundary parameter of a multipart Content-Type, unquoted. */
export function boundaryOf(contentType: string): string {
  const match = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.exec(contentType);
  const boundary = match?.[1] ?? match?.[2];
  if (!boundary) throw unreadable("its Content-Type names no boundary");
  return boundary;
}

/** A header parameter (`name="value"`, with \\-escapes, or a bare token) of a Content-Disposition line. */
function parameter(header: string, name: string): string | null {
  const key = `${name}=`;
  let index = 0;
  while (index < header.length) {
    const at = header.toLowerCase().indexOf(key, index);
    if (at < 0) return null;
    const before = header[at - 1];
    index = at + key.length;
    if (at > 0 && before !== ";" && before !== " " && before !== "\t") continue;
    if (header[index] !== '"') {
      const end = header.indexOf(";", index);
      return header.slice(index, end < 0 ? undefined : end).trim();
    }
    let value = "";
    for (let cursor = index + 1; cursor < header.length; cursor += 1) {
      const char = header[cursor]!;
      if (char === "\\" && cursor + 1 < header.length) {
        cursor += 1;
        value += header[cursor];
      } else if (char === '"') return unescapeFormName(value);
      else value += char;
    }
    return null;
  }
  return null;
}

/** Browsers write `"`, CR and LF in field and file names as %22, %0D and %0A (the HTML standard's form encoding). */
function unescapeFormName(value: string): string {
  return value.replace(/%(22|0d|0a)/gi, (written) => String.fromCharCode(Number.parseInt(written.slice(1), 16)));
}

export function parseMultipart(body: Uint8Array, contentType: string): FormPart[] {
  const buffer = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const delimiter = Buffer.from(`--${boundaryOf(contentType)}`);
  const closing = Buffer.concat([Buffer.from("\r\n"), delimiter]);
  const decoder = new TextDecoder("utf-8");
  const parts: FormPart[] = [];
  // The first delimiter may begin the body or follow a preamble and a line break.
  let at = buffer.indexOf(delimiter);
  if (at < 0) throw unreadable("the boundary does not occur in it");
  for (;;) {
    let cursor = at + delimiter.length;
    if (buffer[cursor] === 0x2d && buffer[cursor + 1] === 0x2d) return parts; // the closing delimiter
    // The rest of the delimiter line (transport padding), then the part's headers up to a blank line.
    const lineEnd = buffer.indexOf("\r\n", cursor);
    if (lineEnd < 0) throw unreadable("a part ends before its headers");
    cursor = lineEnd + 2;
    const headersEnd = buffer.indexOf("\r\n\r\n", cursor);
    if (headersEnd < 0 || headersEnd - cursor > MAX_HEADER_BYTES) throw unreadable("a part's headers do not end");
    const headers = decoder.decode(buffer.subarray(cursor, headersEnd)).split("\r\n");
    const disposition = headers.find((line) => /^content-disposition\s*:/i.test(line));
    const name = disposition ? parameter(disposition, "name") : null;
    if (!disposition || name === null) throw unreadable("a part has no Content-Disposition name");
    const filename = parameter(disposition, "filename");
    const contentStart = headersEnd + 4;
    const next = buffer.indexOf(closing, contentStart - 2);
    if (next < 0) throw unreadable("the last part is not closed by the boundary");
    parts.push({ name, filename, bytes: body.subarray(Math.min(contentStart, next), next) });
    if (parts.length > MAX_PARTS) {
      throw new AppError("payload_too_large", `The multipart body has more than ${MAX_PARTS} parts.`);
    }
    at = next + 2;
  }
}
