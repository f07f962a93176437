/**
 * The columns of a run that follow from its document alone: its search columns, content hash and series. Kept apart
 * from the rows' statements (run-rows.ts) so the upload worker, which never touches the database, can make them.
 */
import { contentHash } from "@/lib/document/content-hash";
import type { RunDocument } from "@/lib/document/normalize";
import { searchPairsOf, searchTriplesOf } from "@/lib/document/search-pairs";
import { type SeriesIdentity, seriesIdentity } from "@/lib/series/key";

type SearchedFields = Pick<RunDocument, "name" | "engine" | "model" | "command" | "notes">;

export function searchTextOf(doc: SearchedFields): string {
  return [doc.name, doc.engine, doc.model, doc.command ?? "", doc.notes ?? ""].join("\n").toLowerCase();
}

export interface SearchColumns {
  searchText: string;
  searchPairs: string;
  searchTriples: string;
}

/** The columns the text search reads, written together wherever a run's searched fields are. */
export function searchColumnsOf(doc: SearchedFields): SearchColumns {
  const searchText = searchTextOf(doc);
  return { searchText, searchPairs: searchPairsOf(searchText), searchTriples: searchTriplesOf(searchText) };
}

/**
 * What a run's rows need that follows from its document alone, made where the document is made: an upload's in the
 * upload worker (lib/ingest/ingest.ts, documentsToStore), so the server's thread, which every request shares, only
 * writes the rows. Content hashing, the search columns and the series key were ~3% of that thread under a load of
 * uploads.
 */
export interface DocumentDerived {
  contentHash: string;
  search: SearchColumns;
  series: SeriesIdentity;
}

export function documentDerived(doc: RunDocument): DocumentDerived {
  return { contentHash: contentHash(doc), search: searchColumnsOf(doc), series: seriesIdentity(doc) };
}
