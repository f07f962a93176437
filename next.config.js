// Next.js configuration. CommonJS on purpose: package.json has no "type" field.
const { version } = require("./package.json");

// proxy.ts sees every request but the two that take whole files (POST /api/runs and /api/restore: see its
// matcher), and Next reads a request's body for the proxy, up to this size, before the proxy runs. Kept small,
// above the largest body those other writes take (200 kB), so a request that will be refused (no token, too
// long) costs at most this much before it is answered. The file writes reach their handlers unread: the handler
// checks the token and the declared length first, and reads the body only then, up to SERVEBENCH_MAX_BODY_MB.
const PROXY_BODY_BYTES = 1_000_000;
/** @type {import('next').NextConfig} */
module.exports = {
  reactStrictMode: true,
  poweredByHeader: false,
  // proxy.ts redirects /path/ to /path itself, with the security headers Next's own redirect lacks.
  skipTrailingSlashRedirect: true,
  experimental: {
    proxyClientMaxBodySize: PROXY_BODY_BYTES,
    // `npm run bench -- --cpu-prof DIR` builds with the server's function names kept, so its profiles name them.
    ...(process.env.SERVEBENCH_SERVER_UNMINIFIED === "1" ? { serverMinification: false } : {}),
  },
  // CI (.ci/run) type-checks the whole project before its tests build the app, and says so: the build need not
  // check the same types again. Every other build checks them.
  ...(process.env.SERVEBENCH_TYPES_CHECKED === "1" ? { typescript: { ignoreBuildErrors: true } } : {}),
  // The database drivers (native SQLite bindings, pg) are loaded by Node at run time, not bundled.
  serverExternalPackages: ["better-sqlite3", "@prisma/adapter-better-sqlite3", "pg", "@prisma/adapter-pg"],
  env: { NEXT_PUBLIC_SERVEBENCH_VERSION: version },
  // Security headers for every response: pages, API routes, static files, errors. proxy.ts replaces the
  // Content-Security-Policy below with the per-request one that carries the script nonce; this strict one
  // stands for anything proxy.ts would not see.
  // The embeds (/embed/…) are the one exception to "never in a frame": they carry no X-Frame-Options (which cannot
  // allow every origin), and proxy.ts gives them a CSP whose frame-ancestors is *.
  async headers() {
    const framedByNone = [
      {
        key: "Content-Security-Policy",
        value: "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
      },
      { key: "X-Frame-Options", value: "DENY" },
    ];
    const embed = [
      { key: "Content-Security-Policy", value: "default-src 'none'; base-uri 'none'; form-action 'none'" },
    ];
    return [
      {
        source: "/:path*",
        headers: [
          { key: "X-Content-Type-Options", value: "nosniff" },
          { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
        ],
      },
      { source: "/", headers: framedByNone },
      { source: "/:path((?!embed(?:/|$)).+)", headers: framedByNone },
      { source: "/embed", headers: embed },
      { source: "/embed/:path*", headers: embed },
    ];
  },
};
