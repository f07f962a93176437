"use client";

/**
 * A thin bar at the top of the window while a page is on its way: after a click on a link, or a control that
 * changes the URL (the compare page's baseline, statistic, series…). It appears only when the wait passes
 * 300 ms, so quick answers do not flicker, and it ends when the new address is shown.
 */
import { usePathname, useSearchParams } from "next/navigation";
import { useEffect, useRef, useState } from "react";

const START_EVENT = "servebench:navigation-start";
/** Waits shorter than this show nothing. */
const SHOW_AFTER_MS = 300;
/** A navigation that never lands (an error, a download) stops showing after this. */
const GIVE_UP_MS = 15_000;

/** Call before router.push/replace: the bar shows if the page takes longer than 300 ms to change. */
export function startNavigationProgress(): void {
  window.dispatchEvent(new Event(START_EVENT));
}

function isPageLink(event: MouseEvent): boolean {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey)
    return false;
  const anchor = (event.target as Element | null)?.closest?.("a[href]");
  if (!(anchor instanceof HTMLAnchorElement)) return false;
  if (anchor.target && anchor.target !== "_self") return false;
  if (anchor.hasAttribute("download")) return false;
  const url = new URL(anchor.href, window.location.href);
  if (url.origin !== window.location.origin || url.pathname.startsWith("/api/")) return false;
  return url.pathname !== window.location.pathname || url.search !== window.location.search;
}

export function NavigationProgress() {
  const pathname = usePathname();
  const search = useSearchParams().toString();
  const [visible, setVisible] = useState(false);
  const timers = useRef<{ show?: ReturnType<typeof setTimeout>; stop?: ReturnType<typeof setTimeout> }>({});

  useEffect(() => {
    const stop = () => {
      clearTimeout(timers.current.show);
      clearTimeout(timers.current.stop);
      setVisible(false);
    };
    const start = () => {
      stop();
      timers.current.show = setTimeout(() => setVisible(true), SHOW_AFTER_MS);
      timers.current.stop = setTimeout(stop, GIVE_UP_MS);
    };
    const onClick = (event: MouseEvent) => {
      if (isPageLink(event)) start();
    };
    window.addEventListener(START_EVENT, start);
    document.addEventListener("click", onClick);
    return () => {
      stop();
      window.removeEventListener(START_EVENT, start);
      document.removeEventListener("click", onClick);
    };
  }, []);

  // The new address is on screen: done.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the address changes, which is the point
  useEffect(() => {
    clearTimeout(timers.current.show);
    clearTimeout(timers.current.stop);
    setVisible(false);
  }, [pathname, search]);

  return (
    <div
      className={`pointer-events-none fixed inset-x-0 top-0 z-50 h-0.5 overflow-hidden ${visible ? "" : "hidden"}`}
      data-testid="navigation-progress"
      data-visible={visible ? "true" : "false"}
    >
      <div className="nav-progress h-full w-1/3 bg-blue-600 dark:bg-blue-400" />
      <span className="sr-only" role="status">
        {visible ? "Loading…" : ""}
      </span>
    </div>
  );
}
