"use client";

/**
 * The write token in the browser. A servebench started with SERVEBENCH_WRITE_TOKEN answers writes without it
 * 401 `unauthorized`; the page that got that answer shows WriteTokenPrompt, the token is kept in this
 * browser's localStorage, and authorizedFetch sends it as `Authorization: Bearer …` with every write after.
 * Reading never needs it.
 */
import { useState } from "react";
import type { ApiErrorView } from "./api-error";
import { inputClass, labelClass, primaryButtonClass } from "./primitives";

const STORAGE_KEY = "servebench.writeToken";

export function storedWriteToken(): string | null {
  try {
    return window.localStorage.getItem(STORAGE_KEY) || null;
  } catch {
    // Storage disabled (private mode, a sandbox): writes go without a token.
    return null;
  }
}

export function storeWriteToken(token: string): void {
  try {
    window.localStorage.setItem(STORAGE_KEY, token);
  } catch {
    // Nothing to keep it in; the next 401 asks again.
  }
}

/** fetch, with the stored write token as `Authorization: Bearer …` when there is one. */
export function authorizedFetch(url: string, init: RequestInit = {}): Promise<Response> {
  const token = storedWriteToken();
  if (!token) return fetch(url, init);
  const headers = new Headers(init.headers);
  headers.set("Authorization", `Bearer ${token}`);
  return fetch(url, { ...init, headers });
}

/** Did the server refuse a write for want of the right token? */
export function needsWriteToken(error: Pick<ApiErrorView, "status" | "code"> | null): boolean {
  return error?.status === 401 && error.code === "unauthorized";
}

/**
 * "This servebench needs a write token": a password field and Save. It is no <form> of its own, since it is
 * shown inside the forms whose write was refused; Enter saves too. `onSaved` retries the refused write.
 */
export function WriteTokenPrompt({ onSaved }: { onSaved: () => void }) {
  const [token, setToken] = useState("");
  const [refused] = useState(() => storedWriteToken() !== null);

  function save() {
    const value = token.trim();
    if (!value) return;
    storeWriteToken(value);
    onSaved();
  }

  return (
    <fieldset
      aria-labelledby="write-token-label"
      className="space-y-2 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm dark:border-amber-800 dark:bg-amber-950/40"
      data-testid="write-token-prompt"
    >
      <label id="write-token-label" htmlFor="write-token" className={labelClass}>
        This servebench needs a write token
      </label>
      <p className="text-xs text-zinc-600 dark:text-zinc-400">
        {refused
          ? "The saved token was refused; enter the current one."
          : "Ask whoever runs it. The token is kept in this browser and sent with every change you make here."}
      </p>
      <div className="flex gap-2">
        <input
          id="write-token"
          type="password"
          autoComplete="off"
          className={inputClass}
          value={token}
          onChange={(event) => setToken(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === "Enter") {
              event.preventDefault();
              save();
            }
          }}
          data-testid="write-token-input"
        />
        <button
          type="button"
          className={primaryButtonClass}
          onClick={save}
          disabled={!token.trim()}
          data-testid="write-token-save"
        >
          Save
        </button>
      </div>
    </fieldset>
  );
}
