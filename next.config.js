// Next.js configuration. CommonJS on purpose: package.json has no "type" field.
const { version } = require("./package.json");

// proxy.ts sees every request, uploads included. Next buffers a request body for the proxy up to this size and
// cuts what is longer, so the size sits above the upload limit (SERVEBENCH_MAX_BODY_MB, read again when `next
// start` loads this file): a body within the limit reaches its handler whole, a longer one is refused there (413).
const maxBodyMb = Number(process.env.SERVEBENCH_MAX_BODY_MB) > 0 ? Number(process.env.SERVEBENCH_MAX_BODY_MB) : 100;

/** @type {import('next').NextConfig} */
module.exports = {
  reactStrictMode: true,
  poweredByHeader: false,
  // proxy.ts redirects /path/ to /path itself, with the security headers Next's own redirect lacks.
  skipTrailingSlashRedirect: true,
  experimental: { proxyClientMaxBodySize: Math.round(maxBodyMb * 1_000_000) + 1_000_000 },
  // The database drivers (native SQLite bindings, pg) are loaded by Node at run time, not bundled.
  serverExternalPackages: ["better-sqlite3", "@prisma/adapter-better-sqlite3", "pg", "@prisma/adapter-pg"],
  env: { NEXT_PUBLIC_SERVEBENCH_VERSION: version },
  // Security headers for every response: pages, API routes, static files, errors. proxy.ts replaces the
  // Content-Security-Policy below with the per-request one that carries the script nonce; this strict one
  // stands for anything proxy.ts would not see.
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
