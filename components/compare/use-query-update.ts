"use client";

/** Change some query parameters of the current page, keeping the rest: the URL holds the view. */
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback } from "react";
import { startNavigationProgress } from "@/components/ui/NavigationProgress";

export function useQueryUpdate(): (changes: Record<string, string | null>, mode?: "push" | "replace") => void {
  const router = useRouter();
  const pathname = usePathname();
  const searchParams = useSearchParams();
  return useCallback(
    (changes, mode = "push") => {
      const params = new URLSearchParams(searchParams.toString());
      for (const [key, value] of Object.entries(changes)) {
        if (value === null) params.delete(key);
        else params.set(key, value);
      }
      // On /compare a default is said by leaving its parameter out, which keeps links short. A saved
      // comparison's page (/c/<slug>) has its own saved view, which a missing parameter falls back to:
      // there a default must be written out to override the saved value.
      if (!pathname.startsWith("/c/")) {
        const defaults: Record<string, string> = { stat: "mean", hide: "", slo_stat: "p99" };
        for (const [key, value] of Object.entries(defaults)) if (params.get(key) === value) params.delete(key);
        if (params.get("baseline") && params.get("baseline") === params.get("runs")?.split(",")[0])
          params.delete("baseline");
      }
      // Commas read better in a shared link than %2C.
      const query = params.toString().replace(/%2C/g, ",");
      const href = query ? `${pathname}?${query}` : pathname;
      startNavigationProgress();
      if (mode === "replace") router.replace(href, { scroll: false });
      else router.push(href, { scroll: false });
    },
    [router, pathname, searchParams],
  );
}

/** Show or hide a series: its id goes in or out of `hide`. */
export function useToggleSeries(): (id: string) => void {
  const searchParams = useSearchParams();
  const update = useQueryUpdate();
  return useCallback(
    (id) => {
      const hidden = new Set((searchParams.get("hide") ?? "").split(",").filter(Boolean));
      if (hidden.has(id)) hidden.delete(id);
      else hidden.add(id);
      update({ hide: [...hidden].join(",") }, "replace");
    },
    [searchParams, update],
  );
}
