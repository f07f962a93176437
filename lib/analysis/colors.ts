/**
 * A run's colour, the same on every page: taken from its id, not from its place in a list, so the run that is
 * orange in the history is orange in every comparison it is part of.
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

/** The run's own colour. */
export function runColor(id: string): string {
  return RUN_COLORS[runColorIndex(id)]!;
}

/**
 * Colours for runs shown together, in their order: each keeps its own colour unless a run before it already
 * has it, in which case it takes the next colour of the palette no run of the view has claimed. Two runs of one
 * view are never drawn alike while the palette lasts (seven runs); past that, the next seven are coloured the
 * same way among themselves.
 */
export function assignRunColors(ids: readonly string[]): string[] {
  const assigned: string[] = [];
  for (let start = 0; start < ids.length; start += RUN_COLORS.length) {
    assigned.push(...assignDistinct(ids.slice(start, start + RUN_COLORS.length)));
  }
  return assigned;
}

/** At most RUN_COLORS.length runs, all different. */
function assignDistinct(ids: readonly string[]): string[] {
  const preferred = ids.map(runColorIndex);
  const taken = new Set<number>();
  const assigned: (number | undefined)[] = ids.map(() => undefined);
  // First: every run whose own colour no earlier run has keeps it.
  preferred.forEach((index, position) => {
    if (!taken.has(index)) {
      taken.add(index);
      assigned[position] = index;
    }
  });
  // Then the rest, in order, take the first free colour after their own.
  preferred.forEach((index, position) => {
    if (assigned[position] !== undefined) return;
    let step = 1;
    while (taken.has((index + step) % RUN_COLORS.length)) step++;
    const next = (index + step) % RUN_COLORS.length;
    taken.add(next);
    assigned[position] = next;
  });
  return assigned.map((index) => RUN_COLORS[index ?? 0]!);
}
