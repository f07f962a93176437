"use client";

/**
 * Change some query parameters of the current page, keeping the rest: the URL holds the view.
 *
 * The router's search parameters lag behind a navigation: until router.replace's render commits, every control
 * still reads the old URL. An edit made in that window (blur the TTFT box by choosing a statistic) built on the
 * old URL, and its navigation then replaced the previous edit's: the TTFT was lost. So the query the page has
 * asked for is kept here, outside React, until the URL shows it; every edit builds on it. One source of truth
 * for the query still in flight, shared by every control of the page.
 */
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback, useEffect } from "react";
import { startNavigationProgress } from "@/components/ui/NavigationProgress";

interface PendingQuery {
  pathname: string;
  /** The latest query asked for, in URLSearchParams' own encoding. */
  query: string;
  /** Every query on the way there: the one the first edit started from and each asked for since. */
  passed: Set<string>;
}

let pending: PendingQuery | null = null;

/** One spelling per query, so "a,b" and "a%2Cb" compare equal. */
function canonical(query: string): string {
  return new URLSearchParams(query).toString();
}

/**
 * Forget the pending query once the URL shows it, or when the URL moved somewhere no edit asked for (a link,
 * the back button): from then on the URL is the truth again.
 */
function settle(pathname: string, current: string): void {
  if (!pending) return;
  if (pending.pathname !== pathname || pending.query === current || !pending.passed.has(current)) pending = null;
}

/** The query the next edit builds on: the one in flight, else the URL's. */
function baseQuery(pathname: string, current: string): string {
  settle(pathname, current);
  return pending ? pending.query : current;
}

if (typeof window !== "undefined") {
  // Back and forward move the URL on purpose; what was in flight no longer applies.
  window.addEventListener("popstate", () => {
    pending = null;
  });
}

function useCurrentQuery(): { pathname: string; current: string } {
  const pathname = usePathname();
  const current = canonical(useSearchParams().toString());
  useEffect(() => settle(pathname, current), [pathname, current]);
  return { pathname, current };
}

export function useQueryUpdate(): (changes: Record<string, string | null>, mode?: "push" | "replace") => void {
  const router = useRouter();
  const { pathname, current } = useCurrentQuery();
  return useCallback(
    (changes, mode = "push") => {
      const from = baseQuery(pathname, current);
      const params = new URLSearchParams(from);
      for (const [key, value] of Object.entries(changes)) {
        if (value === null) params.delete(key);
        else params.set(key, value);
      }
      // On /compare a default is said by leaving its parameter out, which keeps links short. A saved
      // comparison's page (/c/<slug>) has its own saved view, which a missing parameter falls back to:
      // there a default must be written out to override the saved value.
      if (!pathname.startsWith("/c/")) {
        const defaults: Record<string, string> = { stat: "mean", hide: "", slo_stat: "p99", cdf_metric: "ttft" };
        for (const [key, value] of Object.entries(defaults)) if (params.get(key) === value) params.delete(key);
        if (params.get("baseline") && params.get("baseline") === params.get("runs")?.split(",")[0])
          params.delete("baseline");
      }
      const next = params.toString();
      if (next === from) return;
      const passed = pending?.passed ?? new Set([from]);
      passed.add(next);
      pending = { pathname, query: next, passed };
      // Commas read better in a shared link than %2C.
      const query = next.replace(/%2C/g, ",");
      const href = query ? `${pathname}?${query}` : pathname;
      startNavigationProgress();
      if (mode === "replace") router.replace(href, { scroll: false });
      else router.push(href, { scroll: false });
    },
    [router, pathname, current],
  );
}

/** A reader of the query the next edit builds on (the one in flight, else the URL's), for controls that read it. */
export function useLatestQuery(): () => URLSearchParams {
  const { pathname, current } = useCurrentQuery();
  return useCallback(() => new URLSearchParams(baseQuery(pathname, current)), [pathname, current]);
}

/** Show or hide a series: its id goes in or out of `hide`. */
export function useToggleSeries(): (id: string) => void {
  const latest = useLatestQuery();
  const update = useQueryUpdate();
  return useCallback(
    (id) => {
      // Read from the query in flight too: two quick clicks on two legend entries hide both.
      const hidden = new Set((latest().get("hide") ?? "").split(",").filter(Boolean));
      if (hidden.has(id)) hidden.delete(id);
      else hidden.add(id);
      update({ hide: [...hidden].join(",") }, "replace");
    },
    [latest, update],
  );
}
