// Next.js configuration. CommonJS on purpose: package.json has no "type" field.
const { version } = require("./package.json");

/** @type {import('next').NextConfig} */
module.exports = {
  reactStrictMode: true,
  poweredByHeader: false,
  // The database drivers (native SQLite bindings, pg) are loaded by Node at run time, not bundled.
  serverExternalPackages: ["better-sqlite3", "@prisma/adapter-better-sqlite3", "pg", "@prisma/adapter-pg"],
  env: { NEXT_PUBLIC_SERVEBENCH_VERSION: version },
  // Security headers for every response: pages, API routes, static files, errors. proxy.ts replaces the
  // Content-Security-Policy below with the per-request one that carries the script nonce; this one stands
  // for the few requests proxy.ts does not see (uploads with a chunked or 10 MB+ body, see its matcher),
  // whose answers are JSON: nothing in them may load or run.
  async headers() {
    return [
      {
        source: "/:path*",
        headers: [
          {
            key: "Content-Security-Policy",
            value: "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
          },
          { key: "X-Content-Type-Options", value: "nosniff" },
          { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
          { key: "X-Frame-Options", value: "DENY" },
        ],
      },
    ];
  },
};
