import type { Metadata } from "next";
import Link from "next/link";
import { connection } from "next/server";
import type { ReactNode } from "react";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "servebench", template: "%s · servebench" },
  description: "Keep, compare and share LLM inference-server benchmark runs.",
};

const VERSION = process.env.NEXT_PUBLIC_SERVEBENCH_VERSION ?? "dev";

function NavLink({ href, children }: { href: string; children: ReactNode }) {
  return (
    <Link
      href={href}
      className="rounded-md px-3 py-1.5 text-sm font-medium text-zinc-600 hover:bg-zinc-100 hover:text-zinc-900 dark:text-zinc-300 dark:hover:bg-zinc-800 dark:hover:text-white"
    >
      {children}
    </Link>
  );
}

export default async function RootLayout({ children }: { children: ReactNode }) {
  // Every page renders per request, so Next can put the request's CSP nonce (proxy.ts) on its scripts; a page
  // prerendered at build time would carry none, and the CSP would block its scripts.
  await connection();
  return (
    <html lang="en">
      <body className="flex min-h-screen flex-col">
        <header className="border-b border-zinc-200 dark:border-zinc-800">
          <nav className="mx-auto flex max-w-7xl items-center gap-2 px-4 py-3" aria-label="Main">
            <Link href="/" className="mr-4 flex items-baseline gap-2 font-semibold tracking-tight">
              <span className="text-lg">servebench</span>
            </Link>
            <NavLink href="/">Runs</NavLink>
            <NavLink href="/compare">Compare</NavLink>
            <NavLink href="/comparisons">Saved</NavLink>
            <NavLink href="/series">Series</NavLink>
            <NavLink href="/alerts">Alerts</NavLink>
            <NavLink href="/upload">Upload</NavLink>
          </nav>
        </header>
        <main className="mx-auto w-full max-w-7xl flex-1 px-4 py-6">{children}</main>
        <footer className="border-t border-zinc-200 py-4 text-xs text-zinc-500 dark:border-zinc-800 dark:text-zinc-400">
          <div className="mx-auto flex max-w-7xl justify-between px-4">
            <span>servebench v{VERSION}</span>
            <span>
              <a className="hover:underline" href="/api/schema">
                servebench/v1 JSON Schema
              </a>
            </span>
          </div>
        </footer>
      </body>
    </html>
  );
}
