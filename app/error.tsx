"use client";

import Link from "next/link";
import { buttonClass } from "@/components/ui/primitives";

export default function ErrorPage({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <div className="max-w-xl">
      <h1 className="text-2xl font-semibold tracking-tight">Something went wrong</h1>
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
