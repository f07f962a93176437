/** The upload form's fields, and how the document's paths and values map onto them. */

export type FieldName =
  | "name"
  | "engine"
  | "engine_version"
  | "model"
  | "gpu"
  | "gpu_count"
  | "command"
  | "tags"
  | "notes";
export type Fields = Record<FieldName, string>;

export const EMPTY_FIELDS: Fields = {
  name: "",
  engine: "",
  engine_version: "",
  model: "",
  gpu: "",
  gpu_count: "",
  command: "",
  tags: "",
  notes: "",
};

/** Which form field an error path of the document belongs to. */
export function fieldOfPath(path: string): FieldName | null {
  if (path === "hardware.gpu") return "gpu";
  if (path === "hardware.gpu_count") return "gpu_count";
  const head = path.split(".")[0] ?? "";
  return head in EMPTY_FIELDS ? (head as FieldName) : null;
}

/**
 * What the file itself says for a field, from the preview's document; undefined when it says nothing. The name
 * is left out: when the file has none it is made from the engine and model, which is not the file's word.
 */
export function fileValueOf(document: Record<string, unknown>, name: FieldName): string | undefined {
  const hardware = (document.hardware ?? {}) as Record<string, unknown>;
  const raw =
    name === "gpu"
      ? hardware.gpu
      : name === "gpu_count"
        ? hardware.gpu_count
        : name === "engine" || name === "engine_version" || name === "model" || name === "command"
          ? document[name]
          : undefined;
  if (typeof raw === "string") return raw.trim() ? raw : undefined;
  if (typeof raw === "number" && Number.isFinite(raw)) return String(raw);
  return undefined;
}
