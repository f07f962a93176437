"use client";

/**
 * Exports from the compare page: each chart as SVG or PNG (drawn from the chart's own SVG, with its legend
 * and a background so it reads outside the page), the delta tables as CSV and the runs as JSON.
 */
import { buttonClass } from "@/components/ui/primitives";
import { exportFileName } from "@/lib/comparisons/file-name";

const LEGEND_ROW = 20;

function download(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = fileName;
  document.body.appendChild(link);
  link.click();
  link.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 1_000);
}

/** A standalone SVG of the chart: colours resolved, background painted, legend drawn below the plot. */
export function standaloneSvg(container: Element): { svg: string; width: number; height: number } | null {
  const source = container.querySelector("svg.recharts-surface");
  if (!source) return null;
  const width = Number(source.getAttribute("width")) || source.clientWidth;
  const plotHeight = Number(source.getAttribute("height")) || source.clientHeight;
  const style = window.getComputedStyle(container);
  const legend = [...container.querySelectorAll<HTMLElement>("[data-legend-label]")].map((item) => ({
    label: item.dataset.legendLabel ?? "",
    color: item.dataset.legendColor ?? "#000",
    hidden: item.dataset.legendHidden === "true",
  }));
  const height = plotHeight + (legend.length > 0 ? LEGEND_ROW * legend.length + 8 : 0);
  const clone = source.cloneNode(true) as SVGSVGElement;
  clone.setAttribute("xmlns", "http://www.w3.org/2000/svg");
  clone.setAttribute("width", String(width));
  clone.setAttribute("height", String(height));
  clone.setAttribute("viewBox", `0 0 ${width} ${height}`);
  clone.setAttribute("style", `color: ${style.color}; font-family: ${style.fontFamily}; font-size: 12px`);
  const ns = "http://www.w3.org/2000/svg";
  const background = document.createElementNS(ns, "rect");
  background.setAttribute("width", "100%");
  background.setAttribute("height", "100%");
  background.setAttribute("fill", window.matchMedia("(prefers-color-scheme: dark)").matches ? "#09090b" : "#ffffff");
  clone.insertBefore(background, clone.firstChild);
  legend.forEach((item, index) => {
    const y = plotHeight + 8 + index * LEGEND_ROW;
    const dot = document.createElementNS(ns, "circle");
    dot.setAttribute("cx", "16");
    dot.setAttribute("cy", String(y + 6));
    dot.setAttribute("r", "5");
    dot.setAttribute("fill", item.color);
    const text = document.createElementNS(ns, "text");
    text.setAttribute("x", "28");
    text.setAttribute("y", String(y + 10));
    text.setAttribute("fill", item.color);
    text.textContent = item.hidden ? `${item.label} (hidden)` : item.label;
    clone.append(dot, text);
  });
  return { svg: new XMLSerializer().serializeToString(clone), width, height };
}

async function svgToPng(svg: string, width: number, height: number, scale = 2): Promise<Blob> {
  const image = new Image();
  const url = URL.createObjectURL(new Blob([svg], { type: "image/svg+xml" }));
  try {
    await new Promise<void>((resolve, reject) => {
      image.onload = () => resolve();
      image.onerror = () => reject(new Error("the chart could not be drawn"));
      image.src = url;
    });
    const canvas = document.createElement("canvas");
    canvas.width = width * scale;
    canvas.height = height * scale;
    const context = canvas.getContext("2d");
    if (!context) throw new Error("no canvas");
    context.scale(scale, scale);
    context.drawImage(image, 0, 0, width, height);
    return await new Promise<Blob>((resolve, reject) =>
      canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error("no PNG"))), "image/png"),
    );
  } finally {
    URL.revokeObjectURL(url);
  }
}

/** A chart's file: the comparison's title, today's date where the reader is, and the chart. */
export function ChartExportButtons({ chartId, title }: { chartId: string; title: string }) {
  const exportAs = async (kind: "svg" | "png") => {
    const container = document.querySelector(`[data-export-chart="${chartId}"]`);
    const drawn = container ? standaloneSvg(container) : null;
    if (!drawn) return;
    const fileName = exportFileName(title, new Date(), kind, chartId);
    if (kind === "svg") download(new Blob([drawn.svg], { type: "image/svg+xml" }), fileName);
    else download(await svgToPng(drawn.svg, drawn.width, drawn.height), fileName);
  };
  const small =
    "rounded border border-zinc-300 px-1.5 py-0.5 text-xs text-zinc-600 hover:bg-zinc-50 dark:border-zinc-700 dark:text-zinc-400 dark:hover:bg-zinc-800";
  return (
    <fieldset className="flex gap-1">
      <legend className="sr-only">Download this chart</legend>
      <button
        type="button"
        className={small}
        onClick={() => void exportAs("png")}
        data-testid={`export-${chartId}-png`}
      >
        PNG
      </button>
      <button
        type="button"
        className={small}
        onClick={() => void exportAs("svg")}
        data-testid={`export-${chartId}-svg`}
      >
        SVG
      </button>
    </fieldset>
  );
}

export function ComparisonExportLinks({ query }: { query: string }) {
  return (
    <div className="flex gap-2">
      <a className={buttonClass} href={`/api/compare/csv?${query}`} download data-testid="export-csv">
        Deltas CSV
      </a>
      <a className={buttonClass} href={`/api/compare/runs?${query}`} download data-testid="export-json">
        Runs JSON
      </a>
    </div>
  );
}
