// Next.js configuration. CommonJS on purpose: package.json has no "type" field.
const { version } = require("./package.json");

/** @type {import('next').NextConfig} */
module.exports = {
  reactStrictMode: true,
  poweredByHeader: false,
  // Native SQLite bindings must be loaded by Node at run time, not bundled.
  serverExternalPackages: ["better-sqlite3", "@prisma/adapter-better-sqlite3"],
  env: { NEXT_PUBLIC_SERVEBENCH_VERSION: version },
};
