"use client";

/** The site's navigation: the current section marked (aria-current), wrapping onto a second row on a phone. */
import Link from "next/link";
import { usePathname } from "next/navigation";

const LINKS: { href: string; label: string; matches: (path: string) => boolean }[] = [
  { href: "/", label: "Runs", matches: (path) => path === "/" || path.startsWith("/runs/") },
  { href: "/compare", label: "Compare", matches: (path) => path.startsWith("/compare") },
  {
    href: "/comparisons",
    label: "Saved",
    matches: (path) => path.startsWith("/comparisons") || path.startsWith("/c/"),
  },
  { href: "/series", label: "Series", matches: (path) => path.startsWith("/series") },
  { href: "/alerts", label: "Alerts", matches: (path) => path.startsWith("/alerts") },
  { href: "/upload", label: "Upload", matches: (path) => path.startsWith("/upload") },
];

export function MainNav() {
  const pathname = usePathname() ?? "";
  return (
    <ul className="-mx-1.5 flex flex-wrap items-center gap-y-1 sm:mx-0 sm:gap-x-1">
      {LINKS.map((link) => {
        const current = link.matches(pathname);
        return (
          <li key={link.href}>
            <Link
              href={link.href}
              aria-current={current ? "page" : undefined}
              className={`block rounded-md px-1.5 py-1.5 text-sm font-medium sm:px-3 ${
                current
                  ? "bg-zinc-100 text-zinc-900 dark:bg-zinc-800 dark:text-white"
                  : "text-zinc-700 hover:bg-zinc-100 hover:text-zinc-900 dark:text-zinc-300 dark:hover:bg-zinc-800 dark:hover:text-white"
              }`}
            >
              {link.label}
            </Link>
          </li>
        );
      })}
    </ul>
  );
}
