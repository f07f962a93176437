/**
 * Zip uploads: a results folder zipped up. Entries are checked against limits from the archive's own
 * directory before anything is inflated, so a zip bomb is refused without being expanded.
 */
import { unzipSync } from "fflate";
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

export function expandZip(archiveName: string, bytes: Uint8Array): ArchiveEntry[] {
  let entries = 0;
  let declared = 0;
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(bytes, {
      filter: (file) => {
        if (isNoise(file.name)) return false;
        entries += 1;
        declared += file.originalSize;
        if (entries > ZIP_LIMITS.entries) {
          throw new AppError("payload_too_large", `"${archiveName}" holds more than ${ZIP_LIMITS.entries} files.`);
        }
        if (declared > ZIP_LIMITS.uncompressedBytes) {
          throw new AppError(
            "payload_too_large",
            `"${archiveName}" would expand to more than ${ZIP_LIMITS.uncompressedBytes / 1_000_000} MB.`,
          );
        }
        return true;
      },
    });
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new AppError("bad_request", `"${archiveName}" is not a readable zip archive.`);
  }
  const out: ArchiveEntry[] = [];
  let actual = 0;
  for (const [name, content] of Object.entries(files)) {
    actual += content.byteLength;
    // The directory's sizes could lie; the inflated total is checked too.
    if (actual > ZIP_LIMITS.uncompressedBytes) {
      throw new AppError("payload_too_large", `"${archiveName}" expands to more than ${ZIP_LIMITS.uncompressedBytes / 1_000_000} MB.`);
    }
    out.push({ name: `${archiveName}/${name}`, bytes: content });
  }
  return out.sort((a, b) => a.name.localeCompare(b.name, "en", { numeric: true }));
}
