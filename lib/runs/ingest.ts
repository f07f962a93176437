/**
 * An upload request → a canonical run document. Accepts a servebench/v1 JSON body, or a multipart form
 * with a `file` field and optional context fields that fill or override what the file says.
 */
import { z } from "zod";
import { AppError } from "@/lib/errors";
import { decodeUtf8, isJsonMediaType, mediaTypeOf, parseJsonText, readBodyWithLimit } from "@/lib/http/body";
import { normalizeRunDocument, type RunDocument } from "./normalize";

/** Form fields that may accompany an uploaded file. Empty fields are ignored. */
export const UPLOAD_CONTEXT_FIELDS = [
  "name",
  "engine",
  "engine_version",
  "model",
  "gpu",
  "gpu_count",
  "command",
  "tags",
  "notes",
] as const;
export type UploadContextField = (typeof UPLOAD_CONTEXT_FIELDS)[number];
export type UploadContext = Partial<Record<UploadContextField, string>>;

/** Apply form context over a parsed file. Runs before validation, so bad values are named like file fields. */
export function applyUploadContext(raw: unknown, context: UploadContext): unknown {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return raw;
  const doc: Record<string, unknown> = { ...(raw as Record<string, unknown>) };
  const set = (field: UploadContextField, apply: (value: string) => void) => {
    const value = context[field]?.trim();
    if (value) apply(value);
  };
  set("name", (value) => (doc.name = value));
  set("engine", (value) => (doc.engine = value));
  set("engine_version", (value) => (doc.engine_version = value));
  set("model", (value) => (doc.model = value));
  set("command", (value) => (doc.command = value));
  set("notes", (value) => (doc.notes = value));
  set("tags", (value) => {
    doc.tags = value
      .split(",")
      .map((tag) => tag.trim())
      .filter(Boolean);
  });
  const hardwareOverride: Record<string, unknown> = {};
  set("gpu", (value) => (hardwareOverride.gpu = value));
  set("gpu_count", (value) => (hardwareOverride.gpu_count = /^\d+$/.test(value) ? Number(value) : value));
  if (Object.keys(hardwareOverride).length > 0) {
    const existing = doc.hardware;
    const base = typeof existing === "object" && existing !== null && !Array.isArray(existing) ? existing : {};
    doc.hardware = { ...base, ...hardwareOverride };
  }
  return doc;
}

export interface ParsedUpload {
  raw: unknown;
  context: UploadContext;
  fileName: string | null;
}

const SUPPORTED_TYPES = "application/json (a servebench/v1 document) or multipart/form-data with a `file` field";

/** Read an upload request's body into the parsed file and its form context. Does not validate the run. */
export async function readUploadRequest(request: Request, limitBytes: number): Promise<ParsedUpload> {
  const mediaType = mediaTypeOf(request);
  if (isJsonMediaType(mediaType)) {
    const bytes = await readBodyWithLimit(request, limitBytes);
    return { raw: parseJsonText(decodeUtf8(bytes), "The request body"), context: {}, fileName: null };
  }
  if (mediaType === "multipart/form-data") {
    const bytes = await readBodyWithLimit(request, limitBytes);
    let form: FormData;
    try {
      form = await new Response(bytes, {
        headers: { "content-type": request.headers.get("content-type") ?? "" },
      }).formData();
    } catch {
      throw new AppError("bad_request", "The multipart body could not be read; check its boundary and encoding.");
    }
    const file = form.get("file");
    if (file === null) {
      throw new AppError("bad_request", "The multipart body has no `file` field; attach the results file as `file`.", [
        { path: "file", message: "is required" },
      ]);
    }
    const text = typeof file === "string" ? file : await file.text();
    const fileName = typeof file === "string" ? null : file.name;
    const context: UploadContext = {};
    for (const field of UPLOAD_CONTEXT_FIELDS) {
      const value = form.get(field);
      if (typeof value === "string") context[field] = value;
    }
    return { raw: parseJsonText(text, fileName ? `The file "${fileName}"` : "The file"), context, fileName };
  }
  throw new AppError(
    "unsupported_media_type",
    `Content-Type ${mediaType ? `"${mediaType}"` : "(none)"} is not supported; send ${SUPPORTED_TYPES}.`,
  );
}

/** Read, merge and validate an upload. Throws 400/413/415/422 AppErrors; writes nothing. */
export async function parseUploadRequest(request: Request, limitBytes: number): Promise<RunDocument> {
  const upload = await readUploadRequest(request, limitBytes);
  return normalizeRunDocument(applyUploadContext(upload.raw, upload.context));
}

const PatchSchema = z.strictObject({
  name: z.string().trim().min(1, "must not be empty").max(200).optional(),
  tags: z
    .array(z.string().trim().min(1, "must not be empty").max(40).regex(/^[^,]+$/, "must not contain a comma"))
    .max(32)
    .optional(),
  notes: z.string().max(20_000).nullable().optional(),
});

export type RunPatchInput = z.infer<typeof PatchSchema>;
export { PatchSchema as RunPatchSchema };
