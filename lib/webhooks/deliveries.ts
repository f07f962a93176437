/**
 * Webhook deliveries: one row per regression and URL (a unique pair, so a regression is announced exactly
 * once per URL however often the series is judged again), sent after the upload has been answered.
 *
 * Durable and portable: the queue is the WebhookDelivery table, not memory. A sender claims a due delivery
 * with a conditional update (status pending, lease free → lease taken); only the one whose update changed
 * a row sends, so several app instances on one database never send twice. A failure schedules the next
 * attempt with back-off (SERVEBENCH_WEBHOOK_RETRY_MS, then ×4 each time, at most 6 attempts; a 4xx other than
 * 408 and 429 is final). After a restart, due deliveries go out on the next sweep: one runs at the first
 * upload or alerts page, and every 30 s while the process has deliveries pending.
 *
 * A receiver cannot hold the server: each attempt has one deadline from connecting to the answer's last byte
 * (ATTEMPT_DEADLINE_MS), and at most ANSWER_CAP_BYTES of the answer are read before the rest is cancelled.
 * Attempts are independent: a sweep starts each due delivery on its own and never waits for one to finish, with
 * at most one attempt at a time per URL (a slow receiver holds only its own lease and delays only its own later
 * deliveries) and at most MAX_PARALLEL_ATTEMPTS in the process (each holding at most the capped answer, so
 * memory stays flat).
 */
import { db } from "@/lib/db/client";
import { isUniqueViolation } from "@/lib/db/errors";
import { env } from "@/lib/env";
import type { Prisma } from "@/lib/generated/prisma/client";
import type { WebhookPayload } from "./payload";

export const MAX_ATTEMPTS = 6;
/** One attempt, from connecting to the answer's last byte. An attempt still under way then is a timeout. */
export const ATTEMPT_DEADLINE_MS = 10_000;
/**
 * How much of an answer is read. Enough for any ordinary answer (Slack's "ok", an error message or page) to be
 * read to its end, which leaves the connection reusable; the start of it is kept in a failed attempt's error.
 * Beyond it the body is cancelled, never read.
 */
export const ANSWER_CAP_BYTES = 64 * 1024;
/** The longest error an attempt keeps (the delivery log shows it). */
const ERROR_MAX_CHARS = 500;
/**
 * How long a claim holds a delivery: well past an attempt's deadline and the writes around it, so a lease never
 * runs out (and lets another sender send the same delivery) while its attempt is still under way.
 */
const LEASE_MS = 6 * ATTEMPT_DEADLINE_MS;
const SWEEP_MS = 30_000;
/**
 * Attempts under way at once in the process. As many as SERVEBENCH_WEBHOOK_URLS can name (20), so with one
 * attempt per URL the configured receivers never wait for one another's slot.
 */
const MAX_PARALLEL_ATTEMPTS = 20;

export function webhookUrls(): string[] {
  return env().SERVEBENCH_WEBHOOK_URLS;
}

/** The wait before attempt `attempt + 1` after `attempt` failures. */
export function retryDelayMs(attempt: number): number {
  return Math.min(env().SERVEBENCH_WEBHOOK_RETRY_MS * 4 ** (attempt - 1), 3_600_000);
}

/** Queue one delivery per configured URL; a pair already queued is left as it is. Returns how many were new. */
export async function enqueueDeliveries(changeId: string, payload: WebhookPayload): Promise<number> {
  let created = 0;
  const now = new Date();
  for (const url of webhookUrls()) {
    try {
      await db().webhookDelivery.create({
        data: {
          changeId,
          url,
          payloadJson: JSON.stringify(payload),
          status: "pending",
          nextAttemptAt: now,
          createdAt: now,
        },
      });
      created++;
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
  }
  if (created > 0) scheduleSweep(0);
  return created;
}

interface SenderState {
  timer: NodeJS.Timeout | null;
  at: number;
  /** The pass that finds due deliveries and starts them; it never waits for an attempt to end. */
  sweeping: Promise<void> | null;
  /** A sweep was asked for while one was running (perhaps past its query): run another pass after it. */
  sweepAgain: boolean;
  /** This process's attempts under way, by URL: one per URL at most. */
  inFlight: Map<string, Promise<void>>;
  /** stopDeliveries is waiting for the attempts under way: nothing new starts or is scheduled. */
  stopping: boolean;
}

const holder = globalThis as unknown as { servebenchWebhookSender?: SenderState };
function state(): SenderState {
  holder.servebenchWebhookSender ??= {
    timer: null,
    at: Infinity,
    sweeping: null,
    sweepAgain: false,
    inFlight: new Map(),
    stopping: false,
  };
  return holder.servebenchWebhookSender;
}

/** Run a sweep after `delayMs`, unless one is already due sooner. Never throws; never keeps the process alive. */
export function scheduleSweep(delayMs: number): void {
  const sender = state();
  if (sender.stopping) return;
  const at = Date.now() + delayMs;
  if (sender.timer && sender.at <= at) return;
  if (sender.timer) clearTimeout(sender.timer);
  sender.at = at;
  sender.timer = setTimeout(() => {
    sender.timer = null;
    sender.at = Infinity;
    void sweepDeliveries();
  }, delayMs);
  sender.timer.unref();
}

/**
 * Start every due delivery whose URL has no attempt under way here (up to MAX_PARALLEL_ATTEMPTS at once). Resolves
 * once they are started, not sent: nothing waits for a receiver. Concurrent calls share one sweep, which runs
 * again if asked during it.
 */
export function sweepDeliveries(): Promise<void> {
  const sender = state();
  if (sender.stopping) return Promise.resolve();
  if (sender.sweeping) {
    sender.sweepAgain = true;
    return sender.sweeping;
  }
  sender.sweeping = (async () => {
    do {
      sender.sweepAgain = false;
      await startDueAttempts(sender);
    } while (sender.sweepAgain && !sender.stopping);
  })()
    .catch((error: unknown) => console.error("[servebench] webhook sweep failed", error))
    .finally(() => {
      sender.sweeping = null;
    });
  return sender.sweeping;
}

/** Pending, free of any lease, and to a URL this process is not sending to already. */
function startableWhere(now: Date, busyUrls: string[]): Prisma.WebhookDeliveryWhereInput {
  return {
    status: "pending",
    OR: [{ leaseUntil: null }, { leaseUntil: { lt: now } }],
    ...(busyUrls.length > 0 ? { url: { notIn: busyUrls } } : {}),
  };
}

async function startDueAttempts(sender: SenderState): Promise<void> {
  while (!sender.stopping && sender.inFlight.size < MAX_PARALLEL_ATTEMPTS) {
    const now = new Date();
    const due = await db().webhookDelivery.findMany({
      where: { ...startableWhere(now, [...sender.inFlight.keys()]), nextAttemptAt: { lte: now } },
      orderBy: [{ nextAttemptAt: "asc" }, { id: "asc" }],
      take: MAX_PARALLEL_ATTEMPTS - sender.inFlight.size,
      select: { id: true, url: true },
    });
    let started = 0;
    for (const { id, url } of due) {
      // Several due deliveries to one URL: the first goes now, the next when it is done.
      if (sender.stopping || sender.inFlight.has(url) || !(await claim(id))) continue;
      const done = attempt(id)
        .catch((error: unknown) => console.error(`[servebench] webhook delivery ${id} failed`, error))
        .finally(() => {
          sender.inFlight.delete(url);
          // The URL is free again, and so is a slot: start what waited for either.
          if (!sender.stopping) void sweepDeliveries();
        });
      sender.inFlight.set(url, done);
      started++;
    }
    // Nothing started: nothing is due, or other senders claimed it first (their leases now hide it).
    if (started === 0) break;
  }
  // With every slot taken, the next attempt to end sweeps again.
  if (sender.stopping || sender.inFlight.size >= MAX_PARALLEL_ATTEMPTS) return;
  const now = new Date();
  const next = await db().webhookDelivery.findFirst({
    where: startableWhere(now, [...sender.inFlight.keys()]),
    orderBy: { nextAttemptAt: "asc" },
    select: { nextAttemptAt: true },
  });
  if (next) {
    scheduleSweep(Math.min(SWEEP_MS, Math.max(0, next.nextAttemptAt.getTime() - now.getTime())));
    return;
  }
  // Pending deliveries under way here or leased by another sender: look again later in case that sender stops.
  const leased = await db().webhookDelivery.findFirst({ where: { status: "pending" }, select: { id: true } });
  if (leased) scheduleSweep(SWEEP_MS);
}

/** The conditional update: true only for the sender whose update matched the due, free, pending row. */
async function claim(id: number): Promise<boolean> {
  const now = new Date();
  const claimed = await db().webhookDelivery.updateMany({
    where: {
      id,
      status: "pending",
      nextAttemptAt: { lte: now },
      OR: [{ leaseUntil: null }, { leaseUntil: { lt: now } }],
    },
    data: { leaseUntil: new Date(now.getTime() + LEASE_MS) },
  });
  return claimed.count === 1;
}

async function attempt(id: number): Promise<void> {
  const delivery = await db().webhookDelivery.findUniqueOrThrow({ where: { id } });
  const started = Date.now();
  const { httpStatus, error } = await post(delivery.url, delivery.payloadJson);
  const attempts = delivery.attempts + 1;
  const finished = new Date();
  const permanent =
    httpStatus !== null && httpStatus >= 400 && httpStatus < 500 && httpStatus !== 408 && httpStatus !== 429;
  const status = error === null ? "delivered" : permanent || attempts >= MAX_ATTEMPTS ? "failed" : "pending";
  await db().$transaction([
    db().webhookAttempt.create({
      data: { deliveryId: id, at: finished, httpStatus, error, durationMs: finished.getTime() - started },
    }),
    db().webhookDelivery.update({
      where: { id },
      data: {
        attempts,
        status,
        leaseUntil: null,
        deliveredAt: status === "delivered" ? finished : null,
        nextAttemptAt:
          status === "pending" ? new Date(finished.getTime() + retryDelayMs(attempts)) : delivery.nextAttemptAt,
      },
    }),
  ]);
  if (status === "pending") scheduleSweep(retryDelayMs(attempts));
  if (error !== null) console.warn(`[servebench] webhook delivery ${id} attempt ${attempts}: ${error} → ${status}`);
}

interface AttemptOutcome {
  /** The status the receiver answered; null when it did not answer. */
  httpStatus: number | null;
  /** Null for a success. */
  error: string | null;
}

/**
 * One POST under one deadline that covers connecting, the answer's headers and its body. A timer of our own
 * rather than AbortSignal.timeout, so the deadline is held (and cleared) here for as long as the attempt lasts.
 */
async function post(url: string, payloadJson: string): Promise<AttemptOutcome> {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), ATTEMPT_DEADLINE_MS);
  let httpStatus: number | null = null;
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json", "User-Agent": "servebench-webhook" },
      body: payloadJson,
      redirect: "error",
      signal: deadline.signal,
    });
    httpStatus = response.status;
    const answer = await readAnswerStart(response.body, deadline.signal);
    // An answer still arriving at the deadline is a timeout whatever its status: the attempt did not end, and it
    // is retried like one that got no answer (a receiver that did take it may see it twice: at least once).
    if (deadline.signal.aborted) return { httpStatus, error: timedOut("reading the answer") };
    // A 2xx is a success even when its body was longer than the cap: the receiver accepted the delivery, and what
    // it says past the cap is not ours to read.
    if (response.ok) return { httpStatus, error: null };
    const text = answerText(answer);
    return { httpStatus, error: `HTTP ${response.status}${text ? `: ${text}` : ""}`.slice(0, ERROR_MAX_CHARS) };
  } catch (caught) {
    if (deadline.signal.aborted) {
      return {
        httpStatus,
        error: timedOut(httpStatus === null ? "waiting for an answer" : "reading the answer"),
      };
    }
    const cause = caught instanceof Error && caught.cause instanceof Error ? `: ${caught.cause.message}` : "";
    return {
      httpStatus,
      error: `${caught instanceof Error ? caught.message : String(caught)}${cause}`.slice(0, ERROR_MAX_CHARS),
    };
  } finally {
    clearTimeout(timer);
  }
}

function timedOut(doing: string): string {
  return `timed out after ${ATTEMPT_DEADLINE_MS} ms ${doing}`;
}

/**
 * The first ANSWER_CAP_BYTES of a body; the rest is cancelled (its connection closed), never read. Stops, with
 * what it has, when the deadline passes.
 */
async function readAnswerStart(body: ReadableStream<Uint8Array> | null, deadline: AbortSignal): Promise<Uint8Array> {
  if (body === null) return new Uint8Array(0);
  const reader = body.getReader();
  const cancel = () => void reader.cancel().catch(() => undefined);
  // A read waiting on a receiver that has stopped sending ends when the deadline cancels the stream.
  deadline.addEventListener("abort", cancel, { once: true });
  const kept = new Uint8Array(ANSWER_CAP_BYTES);
  let length = 0;
  let ended = false;
  try {
    while (length < ANSWER_CAP_BYTES && !deadline.aborted) {
      const chunk = await reader.read();
      if (chunk.done) {
        ended = true;
        break;
      }
      const taken = Math.min(chunk.value.byteLength, ANSWER_CAP_BYTES - length);
      kept.set(chunk.value.subarray(0, taken), length);
      length += taken;
    }
  } finally {
    deadline.removeEventListener("abort", cancel);
    if (!ended) cancel();
  }
  return kept.subarray(0, length);
}

/** An answer as one line of text for the delivery log: whitespace and control characters collapsed. */
function answerText(answer: Uint8Array): string {
  return new TextDecoder()
    .decode(answer)
    .replace(/[\s\p{Cc}]+/gu, " ")
    .trim();
}

export interface DeliveryLogEntry {
  id: number;
  change_id: string;
  url: string;
  status: string;
  attempts: number;
  next_attempt_at: string | null;
  delivered_at: string | null;
  created_at: string;
  log: { at: string; http_status: number | null; error: string | null; duration_ms: number }[];
}

/** The newest deliveries with their attempts, for the alerts page. URLs are returned whole: redact to show. */
export async function listDeliveries(limit = 50, changeIds?: readonly string[]): Promise<DeliveryLogEntry[]> {
  const rows = await db().webhookDelivery.findMany({
    where: changeIds ? { changeId: { in: [...changeIds] } } : {},
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit,
    include: { log: { orderBy: { at: "asc" } } },
  });
  return rows.map((row) => ({
    id: row.id,
    change_id: row.changeId,
    url: row.url,
    status: row.status,
    attempts: row.attempts,
    next_attempt_at: row.status === "pending" ? row.nextAttemptAt.toISOString() : null,
    delivered_at: row.deliveredAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    log: row.log.map((entry) => ({
      at: entry.at.toISOString(),
      http_status: entry.httpStatus,
      error: entry.error,
      duration_ms: entry.durationMs,
    })),
  }));
}

/**
 * Stop the timer and wait for the sweep and the attempts under way: for a clean shutdown (and tests that remove
 * their database). Afterwards a new delivery or sweep starts sending again.
 */
export async function stopDeliveries(): Promise<void> {
  const sender = state();
  sender.stopping = true;
  if (sender.timer) clearTimeout(sender.timer);
  sender.timer = null;
  sender.at = Infinity;
  try {
    while (sender.sweeping || sender.inFlight.size > 0) {
      await sender.sweeping;
      await Promise.all(sender.inFlight.values());
    }
  } finally {
    sender.stopping = false;
  }
}
