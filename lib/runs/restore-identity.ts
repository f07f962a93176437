import { contentHash } from "@/lib/document/content-hash";
import type { RunDocument } from "@/lib/document/normalize";

/** What makes a restored run the same as one already here: its content, tags in any order. */
export function restoreIdentity(document: RunDocument): string {
  return contentHash({ ...document, tags: [...document.tags].sort() });
}
