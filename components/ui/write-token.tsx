"use client";

/**
 * The write token in the browser. A servebench started with SERVEBENCH_WRITE_TOKEN answers writes without it
 * 401 `unauthorized`; the page that got that answer shows WriteTokenPrompt, the token is kept in this
 * browser's localStorage, and authorizedFetch sends it as `Authorization: Bearer …` with every write after
 * (authorizedUpload too: the same for an upload whose progress the page shows).
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

export interface UploadInit {
  method: string;
  body: XMLHttpRequestBodyInit;
  headers?: HeadersInit;
  /** Aborting rejects the promise with an AbortError, as fetch does. */
  signal?: AbortSignal;
  /** Bytes of the request body sent so far, of `total` (null when the browser cannot tell). */
  onUploadProgress?: (loaded: number, total: number | null) => void;
  /** The whole body is sent: from here on the server is working on it. Called once at most. */
  onUploaded?: () => void;
}

/** Statuses whose response has no body; the Response constructor refuses one for them. */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

function responseHeaders(raw: string): Headers {
  const headers = new Headers();
  for (const line of raw.trim().split(/[\r\n]+/)) {
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    try {
      headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
    } catch {
      // A header the Headers class will not take is of no use to the page either.
    }
  }
  return headers;
}

/**
 * authorizedFetch's sibling for a body worth watching go up (fetch reports no upload progress): the same request
 * with the same stored write token as `Authorization: Bearer …`, sent with XMLHttpRequest, answered with a Response
 * as fetch answers it, so what reads the answer (readApiError, `.json()`, a 401 prompting for the token) is the same.
 * A network failure rejects with a TypeError and an abort with an AbortError, as fetch does.
 */
export function authorizedUpload(url: string, init: UploadInit): Promise<Response> {
  return new Promise((resolve, reject) => {
    if (init.signal?.aborted) {
      reject(new DOMException("The upload was aborted.", "AbortError"));
      return;
    }
    const xhr = new XMLHttpRequest();
    xhr.open(init.method, url);
    xhr.responseType = "arraybuffer";
    for (const [name, value] of new Headers(init.headers)) xhr.setRequestHeader(name, value);
    const token = storedWriteToken();
    if (token) xhr.setRequestHeader("Authorization", `Bearer ${token}`);

    let uploaded = false;
    const sent = () => {
      if (uploaded) return;
      uploaded = true;
      init.onUploaded?.();
    };
    // Listeners on xhr.upload must be in place before send(), or the browser reports no upload events.
    xhr.upload.addEventListener("progress", (event) =>
      init.onUploadProgress?.(event.loaded, event.lengthComputable ? event.total : null),
    );
    xhr.upload.addEventListener("load", sent);
    // The answer has begun: the body is certainly all sent, even where no upload event came.
    xhr.addEventListener("readystatechange", () => {
      if (xhr.readyState >= XMLHttpRequest.HEADERS_RECEIVED) sent();
    });
    const onAbort = () => xhr.abort();
    init.signal?.addEventListener("abort", onAbort, { once: true });
    const settle = () => init.signal?.removeEventListener("abort", onAbort);

    xhr.addEventListener("load", () => {
      settle();
      const headers = responseHeaders(xhr.getAllResponseHeaders());
      const body = NULL_BODY_STATUSES.has(xhr.status) ? null : (xhr.response as ArrayBuffer | null);
      try {
        resolve(new Response(body, { status: xhr.status, statusText: xhr.statusText, headers }));
      } catch {
        try {
          // A status text the constructor will not take (it is only a label).
          resolve(new Response(body, { status: xhr.status, headers }));
        } catch {
          // A status outside 200–599, which fetch would not hand over either.
          reject(new TypeError("The server's answer could not be read."));
        }
      }
    });
    xhr.addEventListener("error", () => {
      settle();
      reject(new TypeError("The server could not be reached."));
    });
    xhr.addEventListener("timeout", () => {
      settle();
      reject(new TypeError("The server did not answer in time."));
    });
    xhr.addEventListener("abort", () => {
      settle();
      reject(new DOMException("The upload was aborted.", "AbortError"));
    });
    xhr.send(init.body);
  });
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
