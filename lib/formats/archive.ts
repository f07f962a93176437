/**
 * Zip uploads: a results folder zipped up. The archive's central directory says what it holds; only the files
 * it lists are read (a local entry it does not list, as a crafted or damaged archive may hold, is ignored), each
 * from the offset the directory gives. One expansion budget covers every archive of an upload: declared sizes
 * are checked before anything is inflated, and the inflating itself stops at what is left of the budget,
 * whatever the headers claim, so sixteen small zip bombs cost no more than one.
 */
import { crc32, inflateRawSync } from "node:zlib";
import { AppError } from "@/lib/errors";

export const ZIP_LIMITS = {
  /** Files taken from the archives of one upload (folders and hidden files not counted). */
  entries: 1_000,
  /** Total uncompressed bytes of the files taken from the archives of one upload. */
  uncompressedBytes: 200_000_000,
} as const;

export interface ArchiveEntry {
  name: string;
  bytes: Uint8Array;
}

/** What is left to expand for one upload: shared by all of its archives. */
export interface ExpansionBudget {
  bytesLeft: number;
  entriesLeft: number;
}

export function newExpansionBudget(): ExpansionBudget {
  return { bytesLeft: ZIP_LIMITS.uncompressedBytes, entriesLeft: ZIP_LIMITS.entries };
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

/** "x.zip expands…", or "x.zip and the archives before it expand…" once other archives used part of the budget. */
function whose(archive: string, budget: ExpansionBudget, verb: string): string {
  const shared = budget.bytesLeft < ZIP_LIMITS.uncompressedBytes || budget.entriesLeft < ZIP_LIMITS.entries;
  return shared ? `"${archive}" and the archives before it in this upload ${verb}` : `"${archive}" ${verb}s`;
}

const tooLarge = (archive: string, budget: ExpansionBudget) =>
  new AppError(
    "payload_too_large",
    `${whose(archive, budget, "expand")} to more than ${ZIP_LIMITS.uncompressedBytes / 1_000_000} MB; upload fewer files.`,
  );

const tooMany = (archive: string, budget: ExpansionBudget) =>
  new AppError("payload_too_large", `${whose(archive, budget, "hold")} more than ${ZIP_LIMITS.entries} files.`);

const unreadable = (archive: string, why: string) =>
  new AppError("bad_request", `"${archive}" is not a readable zip archive: ${why}.`);

// Record signatures and sizes (APPNOTE.TXT 4.3).
const END_OF_DIRECTORY = 0x06054b50;
const ZIP64_END_OF_DIRECTORY = 0x06064b50;
const ZIP64_LOCATOR = 0x07064b50;
const DIRECTORY_ENTRY = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;
const END_OF_DIRECTORY_SIZE = 22;
const MAX_COMMENT = 0xffff;

interface DirectoryEntry {
  name: string;
  flags: number;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  localOffset: number;
  isSymlink: boolean;
}

function reader(bytes: Uint8Array) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const inside = (offset: number, length: number) => offset >= 0 && offset + length <= bytes.byteLength;
  return {
    inside,
    u16: (offset: number) => view.getUint16(offset, true),
    u32: (offset: number) => view.getUint32(offset, true),
    u64: (offset: number) => Number(view.getBigUint64(offset, true)),
  };
}

/** The central directory's offset and entry count, from the end-of-central-directory record (or its ZIP64 form). */
function findDirectory(archive: string, bytes: Uint8Array): { offset: number; count: number; end: number } {
  const read = reader(bytes);
  const lowest = Math.max(0, bytes.byteLength - END_OF_DIRECTORY_SIZE - MAX_COMMENT);
  for (let at = bytes.byteLength - END_OF_DIRECTORY_SIZE; at >= lowest; at -= 1) {
    if (read.u32(at) !== END_OF_DIRECTORY) continue;
    // The comment must end exactly at the end of the file; otherwise these bytes are data that looks like one.
    if (at + END_OF_DIRECTORY_SIZE + read.u16(at + 20) !== bytes.byteLength) continue;
    let count = read.u16(at + 10);
    let offset = read.u32(at + 16);
    if (count === 0xffff || offset === 0xffffffff) {
      const locator = at - 20;
      if (!read.inside(locator, 20) || read.u32(locator) !== ZIP64_LOCATOR)
        throw unreadable(archive, "its ZIP64 directory is missing");
      const record = read.u64(locator + 8);
      if (!read.inside(record, 56) || read.u32(record) !== ZIP64_END_OF_DIRECTORY)
        throw unreadable(archive, "its ZIP64 directory is damaged");
      count = read.u64(record + 32);
      offset = read.u64(record + 48);
      return { offset, count, end: record };
    }
    return { offset, count, end: at };
  }
  throw unreadable(archive, "it has no central directory (a truncated download?)");
}

/** The ZIP64 extended-information extra field fills the sizes and offset that do not fit 32 bits. */
function applyZip64(entry: DirectoryEntry, bytes: Uint8Array, extraStart: number, extraLength: number): void {
  const read = reader(bytes);
  let at = extraStart;
  while (at + 4 <= extraStart + extraLength) {
    const id = read.u16(at);
    const size = read.u16(at + 2);
    if (id === 0x0001) {
      let field = at + 4;
      const take = () => {
        const value = read.inside(field, 8) ? read.u64(field) : Number.NaN;
        field += 8;
        return value;
      };
      if (entry.size === 0xffffffff) entry.size = take();
      if (entry.compressedSize === 0xffffffff) entry.compressedSize = take();
      if (entry.localOffset === 0xffffffff) entry.localOffset = take();
      return;
    }
    at += 4 + size;
  }
}

function readDirectory(archive: string, bytes: Uint8Array): DirectoryEntry[] {
  const read = reader(bytes);
  const { offset, count, end } = findDirectory(archive, bytes);
  if (count > ZIP_LIMITS.entries * 4) throw tooMany(archive, newExpansionBudget());
  const entries: DirectoryEntry[] = [];
  let at = offset;
  const decoder = new TextDecoder("utf-8");
  for (let index = 0; index < count; index += 1) {
    if (!read.inside(at, 46) || at >= end || read.u32(at) !== DIRECTORY_ENTRY)
      throw unreadable(archive, "its central directory is damaged");
    const nameLength = read.u16(at + 28);
    const extraLength = read.u16(at + 30);
    const commentLength = read.u16(at + 32);
    if (!read.inside(at + 46, nameLength + extraLength + commentLength))
      throw unreadable(archive, "its central directory is damaged");
    const madeBy = read.u16(at + 4) >> 8;
    const unixMode = read.u32(at + 38) >>> 16;
    const entry: DirectoryEntry = {
      name: decoder.decode(bytes.subarray(at + 46, at + 46 + nameLength)),
      flags: read.u16(at + 8),
      method: read.u16(at + 10),
      crc: read.u32(at + 16),
      compressedSize: read.u32(at + 20),
      size: read.u32(at + 24),
      localOffset: read.u32(at + 42),
      // Made on Unix (3) with the file type bits of a symbolic link.
      isSymlink: madeBy === 3 && (unixMode & 0o170000) === 0o120000,
    };
    applyZip64(entry, bytes, at + 46 + nameLength, extraLength);
    entries.push(entry);
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** The entry's compressed bytes, where its local header (found through the directory) says they start. */
function entryData(archive: string, bytes: Uint8Array, entry: DirectoryEntry): Uint8Array {
  const read = reader(bytes);
  const at = entry.localOffset;
  if (!read.inside(at, 30) || read.u32(at) !== LOCAL_HEADER)
    throw unreadable(archive, `${entry.name} is not where its directory says`);
  const start = at + 30 + read.u16(at + 26) + read.u16(at + 28);
  if (!Number.isFinite(entry.compressedSize) || !read.inside(start, entry.compressedSize))
    throw unreadable(archive, `${entry.name} is cut short`);
  return bytes.subarray(start, start + entry.compressedSize);
}

function inflateEntry(archive: string, data: Uint8Array, entry: DirectoryEntry): Uint8Array {
  if (entry.method === 0) return data;
  if (entry.method !== 8) {
    throw new AppError("bad_request", `"${archive}": ${entry.name} uses a compression method other than deflate.`);
  }
  try {
    // The declared sizes fit the budget (checked before); inflating stops one byte past the declared size, so an
    // entry that claims less than it holds costs no more than it claimed.
    return inflateRawSync(data, { maxOutputLength: entry.size + 1 });
  } catch (error) {
    if ((error as { code?: unknown }).code === "ERR_BUFFER_TOO_LARGE") throw altered(archive, entry);
    throw unreadable(archive, `${entry.name} is damaged`);
  }
}

const altered = (archive: string, entry: DirectoryEntry) =>
  unreadable(archive, `${entry.name} does not match its directory entry (damaged or altered)`);

/** The files of one archive, read through its central directory, charged to the upload's budget. */
export function expandZip(
  archiveName: string,
  bytes: Uint8Array,
  budget: ExpansionBudget = newExpansionBudget(),
): ArchiveEntry[] {
  const out: ArchiveEntry[] = [];
  const entries = readDirectory(archiveName, bytes);
  // Judged on the cleaned name: "../x.json" is a file to read (as "x.json"), ".DS_Store" is noise.
  const wanted = entries.filter((entry) => !entry.name.endsWith("/") && !isNoise(safeEntryName(entry.name)));
  if (wanted.length > budget.entriesLeft) throw tooMany(archiveName, budget);
  let declared = 0;
  for (const entry of wanted) {
    if (entry.flags & 0x1) throw new AppError("bad_request", `"${archiveName}": ${entry.name} is encrypted.`);
    if (entry.isSymlink) {
      throw new AppError(
        "bad_request",
        `"${archiveName}": ${entry.name} is a symbolic link; zip the files themselves (zip without -y).`,
      );
    }
    if (!Number.isSafeInteger(entry.size)) throw unreadable(archiveName, `${entry.name} has no size`);
    declared += entry.size;
  }
  if (declared > budget.bytesLeft) throw tooLarge(archiveName, budget);

  for (const entry of wanted) {
    const content = inflateEntry(archiveName, entryData(archiveName, bytes, entry), entry);
    if (content.byteLength !== entry.size || crc32(content) !== entry.crc) throw altered(archiveName, entry);
    // An archive inside an archive would get a budget of its own from whoever expands it: refused instead.
    if (isZip(content)) {
      throw new AppError(
        "bad_request",
        `"${archiveName}": ${entry.name} is itself a zip archive; unzip it and upload its files.`,
      );
    }
    budget.bytesLeft -= content.byteLength;
    budget.entriesLeft -= 1;
    out.push({ name: `${archiveName}/${safeEntryName(entry.name)}`, bytes: content });
  }
  return out.sort((a, b) => a.name.localeCompare(b.name, "en", { numeric: true }));
}

/** Every upload file with its archives expanded in place, all of them charged to one budget. */
export function expandArchives<File extends { name: string; bytes: Uint8Array }>(
  files: readonly File[],
  budget: ExpansionBudget = newExpansionBudget(),
): (File | ArchiveEntry)[] {
  return files.flatMap((file) => (isZip(file.bytes) ? expandZip(file.name, file.bytes, budget) : [file]));
}
