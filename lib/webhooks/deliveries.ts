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
 */
import { db } from "@/lib/db/client";
import { isUniqueViolation } from "@/lib/db/errors";
import { env } from "@/lib/env";
import type { WebhookPayload } from "./payload";

export const MAX_ATTEMPTS = 6;
const TIMEOUT_MS = 10_000;
const LEASE_MS = 60_000;
const SWEEP_MS = 30_000;

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
  running: Promise<void> | null;
}

const holder = globalThis as unknown as { servebenchWebhooks?: SenderState };
function state(): SenderState {
  holder.servebenchWebhooks ??= { timer: null, at: Infinity, running: null };
  return holder.servebenchWebhooks;
}

/** Run a sweep after `delayMs`, unless one is already due sooner. Never throws; never keeps the process alive. */
export function scheduleSweep(delayMs: number): void {
  const sender = state();
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

/** Send every due delivery once. Concurrent calls share one sweep. */
export function sweepDeliveries(): Promise<void> {
  const sender = state();
  sender.running ??= sweep()
    .catch((error: unknown) => console.error("[servebench] webhook sweep failed", error))
    .finally(() => {
      sender.running = null;
    });
  return sender.running;
}

async function sweep(): Promise<void> {
  for (;;) {
    const now = new Date();
    const due = await db().webhookDelivery.findMany({
      where: {
        status: "pending",
        nextAttemptAt: { lte: now },
        OR: [{ leaseUntil: null }, { leaseUntil: { lt: now } }],
      },
      orderBy: { nextAttemptAt: "asc" },
      take: 20,
    });
    if (due.length === 0) break;
    await Promise.all(due.map((delivery) => attempt(delivery.id, now)));
  }
  const next = await db().webhookDelivery.findFirst({
    where: { status: "pending" },
    orderBy: { nextAttemptAt: "asc" },
    select: { nextAttemptAt: true },
  });
  if (next) scheduleSweep(Math.min(SWEEP_MS, Math.max(0, next.nextAttemptAt.getTime() - Date.now())));
}

async function attempt(id: number, now: Date): Promise<void> {
  // The claim: only the sender whose update matched the free, pending row goes on.
  const claimed = await db().webhookDelivery.updateMany({
    where: { id, status: "pending", OR: [{ leaseUntil: null }, { leaseUntil: { lt: now } }] },
    data: { leaseUntil: new Date(now.getTime() + LEASE_MS) },
  });
  if (claimed.count !== 1) return;
  const delivery = await db().webhookDelivery.findUniqueOrThrow({ where: { id } });
  const started = Date.now();
  let httpStatus: number | null = null;
  let error: string | null = null;
  try {
    const response = await fetch(delivery.url, {
      method: "POST",
      headers: { "Content-Type": "application/json", "User-Agent": "servebench-webhook" },
      body: delivery.payloadJson,
      redirect: "error",
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    httpStatus = response.status;
    // Read (and drop) the body so the connection is released.
    await response.arrayBuffer().catch(() => undefined);
    if (!response.ok) error = `HTTP ${response.status}`;
  } catch (caught) {
    const cause = caught instanceof Error && caught.cause instanceof Error ? `: ${caught.cause.message}` : "";
    error = `${caught instanceof Error ? caught.message : String(caught)}${cause}`.slice(0, 500);
  }
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

/** Stop the timer and wait for a sweep in flight: for a clean shutdown (and tests that remove their database). */
export async function stopDeliveries(): Promise<void> {
  const sender = state();
  if (sender.timer) clearTimeout(sender.timer);
  sender.timer = null;
  sender.at = Infinity;
  await sender.running;
}
