import type { Metadata, Viewport } from "next";
import { headers } from "next/headers";
import Link from "next/link";
import { connection } from "next/server";
import { type ReactNode, Suspense } from "react";
import { MainNav } from "@/components/ui/MainNav";
import { NavigationProgress } from "@/components/ui/NavigationProgress";
import { EMBED_HEADER, embedTheme, THEME_HEADER } from "@/lib/http/embed";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "servebench", template: "%s · servebench" },
  description: "Keep, compare and share LLM inference-server benchmark runs.",
  // A team's internal record: no page belongs in a search engine. robots.txt still lets crawlers fetch saved
  // comparisons (/c/…) and their preview image, so chat apps can unfurl a shared link; this tag keeps those
  // pages out of the index all the same.
  robots: { index: false, follow: false },
};

export const viewport: Viewport = {
  width: "device-width",
  initialScale: 1,
  colorScheme: "light dark",
  themeColor: [
    { media: "(prefers-color-scheme: light)", color: "#ffffff" },
    { media: "(prefers-color-scheme: dark)", color: "#09090b" },
  ],
};

const VERSION = process.env.NEXT_PUBLIC_SERVEBENCH_VERSION ?? "dev";

export default async function RootLayout({ children }: { children: ReactNode }) {
  // Every page renders per request, so Next can put the request's CSP nonce (proxy.ts) on its scripts; a page
  // prerendered at build time would carry none, and the CSP would block its scripts.
  await connection();
  const requestHeaders = await headers();
  // An embed (/embed/…, framed by another site's document): its content alone, no navigation, in the theme the
  // URL asks for. proxy.ts sets these headers from the path and the query, and drops a client's own.
  if (requestHeaders.get(EMBED_HEADER) === "1") {
    return (
      <html lang="en" data-theme={embedTheme(requestHeaders.get(THEME_HEADER))}>
        <body className="bg-white dark:bg-zinc-950">
          <main id="main" className="w-full min-w-0 p-3">
            {children}
          </main>
        </body>
      </html>
    );
  }
  return (
    <html lang="en">
      <body className="flex min-h-screen flex-col">
        <Suspense>
          <NavigationProgress />
        </Suspense>
        <a
          href="#main"
          className="sr-only rounded-md bg-blue-700 px-3 py-2 text-sm font-medium text-white focus:not-sr-only focus:fixed focus:top-2 focus:left-2 focus:z-50"
        >
          Skip to content
        </a>
        <header className="border-b border-zinc-200 dark:border-zinc-800">
          <nav
            className="mx-auto flex max-w-7xl flex-wrap items-center gap-x-4 gap-y-1 px-4 py-2 sm:py-3"
            aria-label="Main"
          >
            <Link href="/" className="font-semibold tracking-tight">
              <span className="text-lg">servebench</span>
            </Link>
            <MainNav />
          </nav>
        </header>
        <main id="main" tabIndex={-1} className="mx-auto w-full max-w-7xl min-w-0 flex-1 px-4 py-6 focus:outline-none">
          {children}
        </main>
        <footer className="border-t border-zinc-200 py-4 text-xs text-zinc-600 dark:border-zinc-800 dark:text-zinc-400">
          <div className="mx-auto flex max-w-7xl flex-wrap justify-between gap-2 px-4">
            <span>servebench v{VERSION}</span>
            <a className="underline underline-offset-2" href="/api/schema">
              servebench/v1 JSON Schema
            </a>
          </div>
        </footer>
      </body>
    </html>
  );
}
