import type { RunDocument } from "./normalize";

/** A run as the store hands it out: its document, its id and when it was uploaded. */
export interface StoredRun extends RunDocument {
  id: string;
  created_at: string;
}
