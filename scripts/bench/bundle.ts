/**
 * First-load JavaScript of each page, from the build's manifests: the root main files every page loads
 * (.next/build-manifest.json `rootMainFiles`: React, Next's router, the Turbopack runtime) plus the page's
 * entry chunks (.next/server/app/<route>/page_client-reference-manifest.js `entryJSFiles`: its layout, error
 * boundary and page). Polyfills are left out: they load only in browsers without ES modules (`nomodule`).
 * Each file is gzipped with zlib (level 9, as a CDN would) and the sizes summed.
 */
import fs from "node:fs";
import path from "node:path";
import vm from "node:vm";
import zlib from "node:zlib";

/** A string only Recharts' code contains: the class of its chart's root <svg>. */
export const RECHARTS_MARKER = "recharts-surface";

export interface PageBundle {
  route: string;
  files: string[];
  rawBytes: number;
  gzipBytes: number;
  /** Files of the page's first load that contain Recharts. */
  rechartsFiles: string[];
}

interface RscManifest {
  entryJSFiles?: Record<string, string[]>;
}

function readClientManifest(file: string): Record<string, RscManifest> {
  const context: { globalThis?: unknown; __RSC_MANIFEST?: Record<string, RscManifest> } = {};
  context.globalThis = context;
  vm.runInNewContext(fs.readFileSync(file, "utf8"), context, { filename: file });
  return context.__RSC_MANIFEST ?? {};
}

const gzipCache = new Map<string, number>();

function gzipSize(file: string): number {
  let size = gzipCache.get(file);
  if (size === undefined) {
    size = zlib.gzipSync(fs.readFileSync(file), { level: 9 }).byteLength;
    gzipCache.set(file, size);
  }
  return size;
}

/** Every app page's first-load JS. */
export function pageBundles(appDir: string): PageBundle[] {
  const next = path.join(appDir, ".next");
  const buildManifest = JSON.parse(fs.readFileSync(path.join(next, "build-manifest.json"), "utf8")) as {
    rootMainFiles?: string[];
  };
  const rootMain = buildManifest.rootMainFiles ?? [];
  const routes = JSON.parse(fs.readFileSync(path.join(next, "app-path-routes-manifest.json"), "utf8")) as Record<
    string,
    string
  >;
  const bundles: PageBundle[] = [];
  for (const [entry, route] of Object.entries(routes)) {
    if (!entry.endsWith("/page") || entry.startsWith("/_")) continue;
    const manifestFile = path.join(next, "server", "app", `${entry}_client-reference-manifest.js`);
    if (!fs.existsSync(manifestFile)) continue;
    const manifest = readClientManifest(manifestFile)[entry];
    const files = new Set(rootMain);
    for (const chunks of Object.values(manifest?.entryJSFiles ?? {})) for (const chunk of chunks) files.add(chunk);
    const list = [...files].filter((file) => file.endsWith(".js"));
    let rawBytes = 0;
    let gzipBytes = 0;
    const rechartsFiles: string[] = [];
    for (const file of list) {
      const full = path.join(next, file);
      const text = fs.readFileSync(full, "utf8");
      rawBytes += Buffer.byteLength(text);
      gzipBytes += gzipSize(full);
      if (text.includes(RECHARTS_MARKER)) rechartsFiles.push(file);
    }
    bundles.push({ route, files: list, rawBytes, gzipBytes, rechartsFiles });
  }
  return bundles.sort((a, b) => a.route.localeCompare(b.route));
}

/** The module scripts a served page's HTML loads (nomodule polyfills excluded), to check the manifest figure. */
export function scriptsInHtml(html: string): string[] {
  const scripts: string[] = [];
  for (const match of html.matchAll(/<script\b([^>]*)>/g)) {
    const attributes = match[1] ?? "";
    const src = /\bsrc="([^"]+)"/.exec(attributes)?.[1];
    if (!src || /\bnomodule\b/i.test(attributes)) continue;
    scripts.push(src.replace(/^\/_next\//, "").replace(/\?.*$/, ""));
  }
  return [...new Set(scripts)];
}
