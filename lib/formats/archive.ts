/**
 * Zip uploads: a results folder zipped up. Inflating is streamed and counted as it goes, so a zip bomb is
 * refused after at most the limit's worth of output, whatever its headers claim; entry counts and declared
 * sizes are checked before an entry is inflated at all.
 */
import { Unzip, type UnzipFile, UnzipInflate } from "fflate";
import { AppError } from "@/lib/errors";

export const ZIP_LIMITS = {
  /** Files inside one archive (folders and hidden files not counted). */
  entries: 1_000,
  /** Total uncompressed bytes of the files taken from one archive. */
  uncompressedBytes: 200_000_000,
} as const;

export interface ArchiveEntry {
  name: string;
  bytes: Uint8Array;
}

export function isZip(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04;
}

/** Names a person did not mean to upload: macOS resource forks, hidden files, folders. */
function isNoise(name: string): boolean {
  return name.endsWith("/") || name.split("/").some((part) => part.startsWith(".") || part === "__MACOSX");
}

/**
 * An entry's name as a plain relative path: no drive, no leading slash, no `..` or `.` parts. Entries are
 * never written to disk, but their names are shown and used to tell files apart.
 */
export function safeEntryName(name: string): string {
  const parts = name
    .replace(/\\/g, "/")
    .replace(/^[A-Za-z]:/, "")
    .split("/")
    .filter((part) => part !== "" && part !== "." && part !== "..");
  return parts.join("/") || "unnamed";
}

function concat(chunks: readonly Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

const tooLarge = (archive: string) =>
  new AppError(
    "payload_too_large",
    `"${archive}" expands to more than ${ZIP_LIMITS.uncompressedBytes / 1_000_000} MB; upload fewer files.`,
  );

export function expandZip(archiveName: string, bytes: Uint8Array): ArchiveEntry[] {
  const out: ArchiveEntry[] = [];
  const live: UnzipFile[] = [];
  let entries = 0;
  let declared = 0;
  let inflated = 0;
  let failure: AppError | null = null;
  const fail = (error: AppError) => {
    failure ??= error;
    for (const file of live) file.terminate();
  };

  const unzipper = new Unzip((file) => {
    // Judged on the cleaned name: "../x.json" is a file to read (as "x.json"), ".DS_Store" is noise.
    if (failure || file.name.endsWith("/") || isNoise(safeEntryName(file.name))) return;
    entries += 1;
    if (entries > ZIP_LIMITS.entries) {
      fail(new AppError("payload_too_large", `"${archiveName}" holds more than ${ZIP_LIMITS.entries} files.`));
      return;
    }
    declared += file.originalSize ?? 0;
    if (declared > ZIP_LIMITS.uncompressedBytes) {
      fail(tooLarge(archiveName));
      return;
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    live.push(file);
    file.ondata = (error, data, final) => {
      if (failure) return;
      if (error) {
        fail(new AppError("bad_request", `"${archiveName}" is not a readable zip archive: ${file.name} is damaged.`));
        return;
      }
      size += data.byteLength;
      inflated += data.byteLength;
      if (inflated > ZIP_LIMITS.uncompressedBytes) {
        fail(tooLarge(archiveName));
        return;
      }
      chunks.push(data);
      if (final) out.push({ name: `${archiveName}/${safeEntryName(file.name)}`, bytes: concat(chunks, size) });
    };
    try {
      file.start();
    } catch {
      fail(new AppError("bad_request", `"${archiveName}": ${file.name} uses a compression method other than deflate.`));
    }
  });
  unzipper.register(UnzipInflate);
  try {
    unzipper.push(bytes, true);
  } catch (error) {
    if (error instanceof AppError) throw error;
    if (!failure) throw new AppError("bad_request", `"${archiveName}" is not a readable zip archive.`);
  }
  if (failure) throw failure;
  return out.sort((a, b) => a.name.localeCompare(b.name, "en", { numeric: true }));
}
