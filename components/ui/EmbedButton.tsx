"use client";

import { iframeSnippet } from "@/lib/comparisons/embed";
import { CopyTextButton } from "./CopyTextButton";

/**
 * Copies the iframe snippet of an embed. The address is made absolute in the browser, from the origin the person is
 * reading servebench at: the one their readers can reach too.
 */
export function EmbedButton({ path, title, height }: { path: string; title: string; height: number }) {
  const origin = typeof window === "undefined" ? "" : window.location.origin;
  return <CopyTextButton text={iframeSnippet(`${origin}${path}`, title, height)} label="Embed" testId="embed-copy" />;
}
