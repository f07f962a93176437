/** Placeholder replaced below. */
export interface RestoreLine {
  line: number;
}
export function readRestoreLines(_name: string, _bytes: Uint8Array): RestoreLine[] {
  return [];
}
