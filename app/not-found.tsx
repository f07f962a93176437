import Link from "next/link";
import { buttonClass } from "@/components/ui/primitives";

export default function NotFound() {
  return (
    <div className="max-w-xl" data-testid="not-found">
      <h1 className="text-2xl font-semibold tracking-tight">Not found</h1>
      <p className="mt-2 text-sm text-zinc-600 dark:text-zinc-400">
        There is no such page or run. A run that was deleted is gone for good; a link to it shows this page.
      </p>
      <div className="mt-4">
        <Link href="/" className={buttonClass}>
          Back to the runs
        </Link>
      </div>
    </div>
  );
}
