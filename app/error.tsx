"use client";

import Link from "next/link";
import { useEffect, useState } from "react";
import { buttonClass } from "@/components/ui/primitives";

/** What /api/health says about the database when it is not ok: its message, or null. */
async function databaseProblem(): Promise<string | null> {
  try {
    const response = await fetch("/api/health", { cache: "no-store" });
    if (response.ok) return null;
    const body = (await response.json()) as { error?: { message?: unknown } };
    return typeof body.error?.message === "string" ? body.error.message : null;
  } catch {
    return null;
  }
}

export default function ErrorPage({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  // A page fails mostly because the database does: the server hides the error from the browser, so the page asks
  // /api/health what is wrong with it (read-only, full, cannot be opened) and says so, as the API's answers do.
  const [database, setDatabase] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    void databaseProblem().then((problem) => {
      if (current) setDatabase(problem);
    });
    return () => {
      current = false;
    };
  }, []);

  return (
    <div className="max-w-xl">
      <h1 className="text-2xl font-semibold tracking-tight">Something went wrong</h1>
      {database ? (
        <p className="mt-2 text-sm" data-testid="database-problem">
          {database}
        </p>
      ) : null}
      <p className="mt-2 text-sm text-zinc-600 dark:text-zinc-400">
        The server could not show this page. The details are in the server&apos;s log
        {error.digest ? (
          <>
            {" "}
            under the reference <code className="font-mono">{error.digest}</code>
          </>
        ) : null}
        . If the database was just moved or deleted, restart servebench with{" "}
        <code className="font-mono">npm start</code>.
      </p>
      <div className="mt-4 flex gap-2">
        <button type="button" className={buttonClass} onClick={reset}>
          Try again
        </button>
        <Link href="/" className={buttonClass}>
          Back to the runs
        </Link>
      </div>
    </div>
  );
}
