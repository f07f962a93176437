/**
 * The layout's rules (docs/development.md, "Where code lives"), measured from the imports of the code itself:
 * lib's folders form layers (no folder reaches one that reaches back, directly or through others), the run
 * document is a leaf, components get their data from pages, files and route handlers stay small, and every API
 * route answers the methods it does not take with the same 405.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(__dirname, "..", "..");
const SOURCE = /\.(ts|tsx)$/;
const MAX_LIB_FILE_LINES = 800;
const MAX_ROUTE_FILE_LINES = 40;

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (rel !== "lib/generated") out.push(...filesUnder(rel));
    } else if (SOURCE.test(entry.name)) out.push(rel);
  }
  return out;
}

const IMPORT = /(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)["']([^"']+)["']/gm;

/** The project file an import specifier of `file` names (`@/…` or relative), or undefined for a package. */
function resolveImport(file: string, spec: string): string | undefined {
  let target: string;
  if (spec.startsWith("@/")) target = spec.slice(2);
  else if (spec.startsWith(".")) target = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
  else return undefined;
  return [target, `${target}.ts`, `${target}.tsx`, `${target}/index.ts`].find((candidate) => {
    const full = path.join(ROOT, candidate);
    return fs.existsSync(full) && fs.statSync(full).isFile();
  });
}

/** The project files a file imports (`@/…` and relative specifiers), as paths from the root. */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(path.join(ROOT, file), "utf8");
  const out: string[] = [];
  for (const match of text.matchAll(IMPORT)) {
    const found = resolveImport(file, match[1]!);
    if (found) out.push(found);
  }
  return out;
}

/** A file's room in lib: its folder (`lib/series`), or the file itself for the small leaves at lib's top. */
function libRoom(file: string): string {
  const parts = file.split("/");
  return parts.length > 2 ? `lib/${parts[1]}` : file;
}

const libFiles = filesUnder("lib");
const appFiles = filesUnder("app");
const componentFiles = filesUnder("components");

function lineCount(file: string): number {
  return fs.readFileSync(path.join(ROOT, file), "utf8").split("\n").length;
}

/** Every cycle among lib's rooms, each as its rooms in order; none when lib is layered. */
function roomCycles(): string[][] {
  const edges = new Map<string, Set<string>>();
  for (const file of libFiles) {
    const from = libRoom(file);
    for (const target of importsOf(file)) {
      if (!target.startsWith("lib/") || target.startsWith("lib/generated/")) continue;
      const to = libRoom(target);
      if (to === from) continue;
      if (!edges.has(from)) edges.set(from, new Set());
      edges.get(from)!.add(to);
    }
  }
  const cycles: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (room: string) => {
    state.set(room, "open");
    stack.push(room);
    for (const next of edges.get(room) ?? []) {
      if (state.get(next) === "open") cycles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(room, "done");
  };
  for (const room of [...edges.keys()].sort()) if (!state.has(room)) visit(room);
  return cycles;
}

describe("the layout of the code", () => {
  it("finds the files it measures", () => {
    expect(libFiles).toContain("lib/document/schema.ts");
    expect(appFiles).toContain("app/api/runs/route.ts");
    expect(importsOf("lib/document/normalize.ts")).toContain("lib/document/schema.ts");
  });

  it("lib's folders are layers: no folder imports one that imports it back, directly or through others", () => {
    expect(roomCycles().map((cycle) => cycle.join(" → "))).toEqual([]);
  });

  it("the run document is a leaf: lib/document imports only itself and lib's top-level files", () => {
    const reaching = libFiles
      .filter((file) => file.startsWith("lib/document/"))
      .flatMap((file) => importsOf(file).map((target) => `${file} → ${target}`))
      .filter((edge) => {
        const target = edge.split(" → ")[1]!;
        return !target.startsWith("lib/document/") && target.split("/").length > 2;
      });
    expect(reaching).toEqual([]);
  });

  it(`no lib file is longer than ${MAX_LIB_FILE_LINES} lines`, () => {
    const long = libFiles
      .map((file) => ({ file, lines: lineCount(file) }))
      .filter((entry) => entry.lines > MAX_LIB_FILE_LINES)
      .map((entry) => `${entry.file}: ${entry.lines}`);
    expect(long).toEqual([]);
  });

  it(`route files are the four beats (parse, authorize, call, answer): at most ${MAX_ROUTE_FILE_LINES} lines`, () => {
    const routes = appFiles.filter((file) => /\/route\.tsx?$/.test(file));
    expect(routes.length).toBeGreaterThan(20);
    const long = routes
      .map((file) => ({ file, lines: lineCount(file) }))
      .filter((entry) => entry.lines > MAX_ROUTE_FILE_LINES)
      .map((entry) => `${entry.file}: ${entry.lines}`);
    expect(long).toEqual([]);
  });

  it("components get their data from pages: none imports a module that queries the database", () => {
    const queryModules = new Set(
      libFiles.filter((file) => importsOf(file).some((target) => target.startsWith("lib/db/client"))),
    );
    expect(queryModules.size).toBeGreaterThan(3);
    const reaching = componentFiles.flatMap((file) =>
      importsOf(file)
        .filter((target) => queryModules.has(target) || target.startsWith("lib/db/"))
        .map((target) => `${file} → ${target}`),
    );
    expect(reaching).toEqual([]);
  });

  it("the browser bundle holds no zod: nothing a client component imports (as a value) reaches it", () => {
    // zod probes `new Function` on first parse, which the pages' CSP (no 'unsafe-eval') reports as a violation.
    const VALUE_IMPORT = /^\s*import\s+(?!type\b)[^;]*?\bfrom\s+["']([^"']+)["']|^\s*import\s+["']([^"']+)["']/gm;
    const valueImports = (file: string): string[] =>
      [...fs.readFileSync(path.join(ROOT, file), "utf8").matchAll(VALUE_IMPORT)].map((match) => match[1] ?? match[2]!);
    const clientFiles = [...componentFiles, ...appFiles].filter((file) =>
      /^\s*["']use client["']/.test(fs.readFileSync(path.join(ROOT, file), "utf8")),
    );
    expect(clientFiles.length).toBeGreaterThan(10);
    const reaching: string[] = [];
    for (const start of clientFiles) {
      const seen = new Set<string>();
      const queue: string[][] = [[start]];
      while (queue.length > 0) {
        const trail = queue.shift()!;
        const file = trail[trail.length - 1]!;
        if (seen.has(file)) continue;
        seen.add(file);
        const specs = valueImports(file);
        if (specs.some((spec) => spec === "zod" || spec.startsWith("zod/"))) {
          reaching.push(trail.join(" → "));
          continue;
        }
        const projectTargets = specs.flatMap((spec) => resolveImport(file, spec) ?? []);
        for (const target of projectTargets) queue.push([...trail, target]);
      }
    }
    expect(reaching).toEqual([]);
  });

  it("every API route answers every method: the ones it does not take with methodsNotAllowed's 405", () => {
    const methods = ["GET", "POST", "PUT", "PATCH", "DELETE"];
    const routes = appFiles.filter((file) => file.startsWith("app/api/") && /\/route\.tsx?$/.test(file));
    const missing: string[] = [];
    for (const file of routes) {
      const text = fs.readFileSync(path.join(ROOT, file), "utf8");
      const exported = new Set<string>();
      for (const match of text.matchAll(
        /export\s+(?:const|async\s+function|function)\s+(GET|POST|PUT|PATCH|DELETE)\b/g,
      ))
        exported.add(match[1]!);
      for (const match of text.matchAll(/export\s+const\s+\{([^}]*)\}\s*=\s*methodsNotAllowed\(/g))
        for (const name of match[1]!.split(",")) exported.add(name.trim());
      const absent = methods.filter((method) => !exported.has(method));
      if (absent.length > 0) missing.push(`${file}: ${absent.join(", ")}`);
    }
    expect(missing).toEqual([]);
  });
});
