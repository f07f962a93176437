/** A tiny trend line for the series list: plain SVG, no chart library on that page. */
export function Sparkline({ values, label }: { values: (number | null)[]; label: string }) {
  const present = values.filter((value): value is number => value !== null);
  if (present.length < 2) return <span className="text-xs text-zinc-600 dark:text-zinc-400">—</span>;
  const width = 120;
  const height = 28;
  const min = Math.min(...present);
  const max = Math.max(...present);
  const span = max - min || 1;
  const step = width / Math.max(1, values.length - 1);
  const path = values
    .map((value, index) =>
      value === null ? null : `${index * step},${(height - 2 - ((value - min) / span) * (height - 4)).toFixed(1)}`,
    )
    .filter(Boolean)
    .join(" ");
  return (
    <svg width={width} height={height} role="img" aria-label={label} className="text-blue-600">
      <polyline points={path} fill="none" stroke="currentColor" strokeWidth={1.5} />
    </svg>
  );
}
