/**
 * Reading request bodies safely: a byte limit enforced while streaming (not after buffering everything),
 * JSON parse errors reported as 400s, and content types checked before anything is parsed.
 */
import { AppError } from "@/lib/errors";

export async function readBodyWithLimit(request: Request, limitBytes: number): Promise<Uint8Array<ArrayBuffer>> {
  const tooLarge = () =>
    new AppError(
      "payload_too_large",
      `The request body is larger than the limit of ${formatBytes(limitBytes)} (set SERVEBENCH_MAX_BODY_MB to change it).`,
    );
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > limitBytes) throw tooLarge();
  if (!request.body) return new Uint8Array(0);

  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limitBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  const body = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1_000_000) return `${(bytes / 1_000_000).toFixed(bytes % 1_000_000 === 0 ? 0 : 1)} MB`;
  if (bytes >= 1_000) return `${(bytes / 1_000).toFixed(0)} kB`;
  return `${bytes} bytes`;
}

/** The media type of a request without its parameters, lower-cased: `application/json`. */
export function mediaTypeOf(request: Request): string {
  return (request.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

export function isJsonMediaType(mediaType: string): boolean {
  return mediaType === "application/json" || /^application\/[a-z0-9.+-]+\+json$/.test(mediaType);
}

/** Parse JSON text, turning a syntax error into a 400 that says where the text broke. */
export function parseJsonText(text: string, what: string): unknown {
  if (text.trim() === "") throw new AppError("invalid_json", `${what} is empty; expected a JSON object.`);
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new AppError("invalid_json", `${what} is not valid JSON: ${detail}`);
  }
}

export function decodeUtf8(bytes: Uint8Array): string {
  return new TextDecoder("utf-8", { fatal: false }).decode(bytes);
}

export async function readJsonBody(request: Request, limitBytes: number, what = "The request body"): Promise<unknown> {
  const mediaType = mediaTypeOf(request);
  if (!isJsonMediaType(mediaType)) {
    throw new AppError(
      "unsupported_media_type",
      `Content-Type ${mediaType ? `"${mediaType}"` : "(none)"} is not supported here; send application/json.`,
    );
  }
  const bytes = await readBodyWithLimit(request, limitBytes);
  return parseJsonText(decodeUtf8(bytes), what);
}
