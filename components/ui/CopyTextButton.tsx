"use client";

import { useState } from "react";
import { buttonClass } from "./primitives";

/** Copies a text (a command block, an embed snippet) to the clipboard and says whether it did. */
export function CopyTextButton({ text, label, testId }: { text: string; label: string; testId?: string }) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setState("copied");
    } catch {
      setState("failed");
    }
    window.setTimeout(() => setState("idle"), 2500);
  }
  return (
    <button type="button" className={buttonClass} onClick={copy} data-testid={testId}>
      <span aria-live="polite">
        {state === "copied" ? "Copied" : state === "failed" ? "Copy failed: select the text" : label}
      </span>
    </button>
  );
}
