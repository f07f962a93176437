/**
 * The `servebench` command as one file: scripts/cli/main.ts and everything it imports (the app's lib modules,
 * zod, shell-quote) bundled by esbuild into public/cli/servebench.mjs, which needs Node ≥ 20 and nothing
 * else. Every servebench serves it at /cli/servebench.mjs, and the published npm package is this file.
 *
 * Built before `next build` (npm run build, and npm start / the browser tests through ensureBuild), so a
 * fresh clone serves it and it is never older than the code: the build's source hash covers lib/ and scripts/cli/.
 * Output is deterministic, so building it again over an unchanged tree changes nothing.
 */
import fs from "node:fs";
import path from "node:path";
import { build, type Plugin } from "esbuild";

const ROOT = path.resolve(__dirname, "..", "..");
export const CLI_BUNDLE = path.join(ROOT, "public", "cli", "servebench.mjs");

function version(): string {
  return (JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string }).version;
}

/**
 * `servebench db copy` works on a servebench installation's databases (Prisma, better-sqlite3, pg): it stays out
 * of the one file, which says where to run it instead.
 */
const withoutDatabaseCommands: Plugin = {
  name: "without-database-commands",
  setup(builder) {
    builder.onResolve({ filter: /\/db-copy$/ }, () => ({ path: "db-copy", namespace: "servebench-stub" }));
    builder.onLoad({ filter: /.*/, namespace: "servebench-stub" }, () => ({
      loader: "ts",
      contents: `export async function runDb(): Promise<number> {
  process.stderr.write("servebench db: run it where servebench is installed (in its folder: npx servebench db copy …); this one-file CLI has no database drivers\\n");
  return 2;
}`,
    }));
  },
};

export async function bundleCli(outfile = CLI_BUNDLE): Promise<{ bytes: number }> {
  const result = await build({
    entryPoints: [path.join(ROOT, "scripts", "cli", "main.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    tsconfig: path.join(ROOT, "tsconfig.json"),
    write: false,
    legalComments: "none",
    minifySyntax: true,
    minifyWhitespace: true,
    banner: {
      js: [
        "#!/usr/bin/env node",
        `// servebench ${version()}: the servebench command in one file (upload, compare, export-run, bench, restore). Needs Node >= 20, nothing else.`,
        "// Built from scripts/cli by scripts/cli/bundle.ts; do not edit.",
        // CommonJS modules inside the bundle (shell-quote) may call require for Node's own modules.
        'import { createRequire as __servebenchCreateRequire } from "node:module";',
        "const require = __servebenchCreateRequire(import.meta.url);",
      ].join("\n"),
    },
    logLevel: "warning",
    plugins: [withoutDatabaseCommands],
  });
  const output = result.outputFiles[0];
  if (!output) throw new Error("esbuild wrote nothing");
  fs.mkdirSync(path.dirname(outfile), { recursive: true });
  const previous = fs.existsSync(outfile) ? fs.readFileSync(outfile) : null;
  if (!previous || !Buffer.from(output.contents).equals(previous)) {
    fs.writeFileSync(outfile, output.contents, { mode: 0o755 });
  }
  return { bytes: output.contents.byteLength };
}

if (require.main === module) {
  bundleCli(process.argv[2] ? path.resolve(process.argv[2]) : CLI_BUNDLE).then(
    ({ bytes }) =>
      console.log(
        `servebench: bundled the CLI into ${path.relative(process.cwd(), CLI_BUNDLE)} (${(bytes / 1000).toFixed(0)} kB)`,
      ),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
