/**
 * A run's colour, the same on every page: taken from its id, not from its place in a list, so the run that is
 * orange in the history is orange in every comparison it is part of. Runs shown together are told apart by
 * assignRunColors, which moves one of two runs that would look alike, the same way whatever their order.
 *
 * The palette leaves out greens and reds, which the deltas use for better and worse, and every colour has a
 * contrast of at least 3:1 (WCAG's bar for graphics) against both themes' backgrounds: white and zinc-50 in
 * light, zinc-950 and zinc-900 in dark. Text is never drawn in these colours (4.5:1 on both a light and a dark
 * background is out of reach for a single colour); labels use the text colour beside a swatch of the run's.
 */

export const RUN_COLORS = [
  "#2563eb", // blue
  "#ea580c", // orange
  "#8b5cf6", // violet
  "#0891b2", // cyan
  "#c026d3", // fuchsia
  "#a16207", // ochre
  "#64748b", // slate
  "#db2777", // pink
] as const;

/** FNV-1a over the id's UTF-16 code units: small, stable, and spreads short ids well. */
function hashId(id: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < id.length; index++) {
    hash ^= id.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/** Where a run's colour sits in RUN_COLORS. */
export function runColorIndex(id: string): number {
  return hashId(id) % RUN_COLORS.length;
}

/** The run's own colour: what it wears alone (its own page) and wherever no other run of the view has it. */
export function runColor(id: string): string {
  return RUN_COLORS[runColorIndex(id)]!;
}

/** Code-unit order: the same on every machine and locale, unlike localeCompare. */
function byId(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Colours for runs shown together (a comparison, a page of the history, a chart), one per id in the order
 * given. The result depends on the set of runs, never on their order: the same runs get the same colours on
 * every page, whichever comes first in a link.
 *
 * Every run keeps its own colour (runColor) unless another run of the set has it too; then the run whose id
 * sorts first keeps it and the other moves to the next colour of the palette no run of the set holds. The
 * palette's colours are all far apart (tests/unit/colors.test.ts holds them to a minimum OKLab distance), so
 * "too similar" only happens as "the same": up to RUN_COLORS.length runs are all told apart. Past that, each
 * colour is shared by at most ⌈runs ÷ colours⌉ runs. A run given twice (repeats of one id) gets one colour.
 */
export function assignRunColors(ids: readonly string[]): string[] {
  const unique = [...new Set(ids)].sort(byId);
  const perColor = Math.max(1, Math.ceil(unique.length / RUN_COLORS.length));
  const uses = RUN_COLORS.map(() => 0);
  const chosen = new Map<string, number>();
  // First: own colours, the earliest id winning a shared one.
  for (const id of unique) {
    const own = runColorIndex(id);
    if (uses[own]! < perColor) {
      uses[own]!++;
      chosen.set(id, own);
    }
  }
  // Then the runs that lost theirs, in id order, each taking the first colour after its own with room left.
  for (const id of unique) {
    if (chosen.has(id)) continue;
    const own = runColorIndex(id);
    let step = 1;
    while (uses[(own + step) % RUN_COLORS.length]! >= perColor) step++;
    const next = (own + step) % RUN_COLORS.length;
    uses[next]!++;
    chosen.set(id, next);
  }
  return ids.map((id) => RUN_COLORS[chosen.get(id)!]!);
}
