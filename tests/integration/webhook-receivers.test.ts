/**
 * Webhook receivers that misbehave, on loopback, against the real sender and a real database: one that answers
 * 200 and then drips its body a byte a second, one that answers 200 with a body of hundreds of MB, one that fails
 * with a 500 once, one that refuses with a 410, and a healthy one, all configured together. A regression of the
 * synthetic nightly series, uploaded through the real route, is announced to each of them.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as postRun } from "@/app/api/runs/route";
import { db } from "@/lib/db/client";
import { reloadEnv } from "@/lib/env";
import { ANSWER_CAP_BYTES, ATTEMPT_DEADLINE_MS, stopDeliveries, sweepDeliveries } from "@/lib/webhooks/deliveries";
import { nightlyDocuments } from "@/tests/support/nightly-documents";
import { jsonRequest, noContext } from "./helpers";

/** What the huge receiver would send if it were read to the end: generated as it is written, never held. */
const HUGE_BODY_BYTES = 512 * 1024 * 1024;
const HUGE_CHUNK = Buffer.alloc(64 * 1024, "x");
const DRIP_INTERVAL_MS = 1_000;

interface Receiver {
  server: http.Server;
  url: string;
  /** The JSON bodies POSTed to it, in order. */
  bodies: Record<string, unknown>[];
}

/** A loopback server that reads each POST whole, records it, then lets `answer` respond (the nth request: 0, 1…). */
async function startReceiver(answer: (response: http.ServerResponse, index: number) => void): Promise<Receiver> {
  const bodies: Record<string, unknown>[] = [];
  const server = http.createServer((request, response) => {
    let text = "";
    request.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
    request.on("end", () => {
      bodies.push(JSON.parse(text) as Record<string, unknown>);
      answer(response, bodies.length - 1);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, bodies };
}

function answerText(response: http.ServerResponse, status: number, text: string): void {
  response.writeHead(status, { "content-type": "text/plain" }).end(text);
}

/** What the dripping receiver saw of its first answer. */
const drip = { started: false, closed: false, bytesDripped: 0 };
/** The first answer: 200 and its headers at once, then one byte a second until closed. Later ones: 200 "ok". */
function answerDripping(response: http.ServerResponse, index: number): void {
  if (index > 0) {
    answerText(response, 200, "ok");
    return;
  }
  response.writeHead(200, { "content-type": "text/plain" });
  response.flushHeaders();
  drip.started = true;
  const timer = setInterval(() => {
    response.write(".");
    drip.bytesDripped++;
  }, DRIP_INTERVAL_MS);
  response.on("close", () => {
    clearInterval(timer);
    drip.closed = true;
  });
}

/** What the huge receiver wrote before its connection closed, and whether it got to the end. */
const huge = { bytesWritten: 0, closed: false, finished: false };
/** Writes as fast as its reader takes it (waiting on back-pressure), until the whole body is out or it is cut off. */
function answerHuge(response: http.ServerResponse): void {
  response.writeHead(200, { "content-type": "application/octet-stream", "content-length": String(HUGE_BODY_BYTES) });
  response.on("close", () => {
    huge.closed = true;
    huge.finished = response.writableFinished;
  });
  void (async () => {
    while (huge.bytesWritten < HUGE_BODY_BYTES && !response.destroyed) {
      const more = response.write(HUGE_CHUNK);
      huge.bytesWritten += HUGE_CHUNK.length;
      if (!more) {
        await new Promise<void>((resolve) => {
          const go = () => {
            response.off("drain", go);
            response.off("close", go);
            resolve();
          };
          response.on("drain", go);
          response.on("close", go);
        });
      }
    }
    if (!response.destroyed) response.end();
  })();
}

let healthy: Receiver;
let dripping: Receiver;
let hugeAnswer: Receiver;
let flaky: Receiver;
let refusing: Receiver;

beforeAll(async () => {
  healthy = await startReceiver((response) => answerText(response, 200, "ok"));
  dripping = await startReceiver(answerDripping);
  hugeAnswer = await startReceiver(answerHuge);
  flaky = await startReceiver((response, index) =>
    index === 0 ? answerText(response, 500, "boom\n  try again") : answerText(response, 200, "ok"),
  );
  refusing = await startReceiver((response) => answerText(response, 410, "gone"));
  process.env.SERVEBENCH_WEBHOOK_URLS = [dripping, healthy, hugeAnswer, flaky, refusing]
    .map((receiver) => receiver.url)
    .join(",");
  process.env.SERVEBENCH_WEBHOOK_RETRY_MS = "50";
  reloadEnv();
});

afterAll(async () => {
  await stopDeliveries();
  for (const receiver of [healthy, dripping, hugeAnswer, flaky, refusing]) {
    receiver.server.closeAllConnections();
    await new Promise((resolve) => receiver.server.close(resolve));
  }
});

async function upload(doc: Record<string, unknown>): Promise<string> {
  const response = await postRun(jsonRequest("/api/runs", "POST", doc), noContext);
  expect(response.status).toBe(201);
  return ((await response.json()) as { series: { verdict: string } }).series.verdict;
}

async function deliveryTo(receiver: Receiver) {
  return db().webhookDelivery.findFirstOrThrow({
    where: { url: receiver.url },
    include: { log: { orderBy: [{ at: "asc" }, { id: "asc" }] } },
  });
}

/** Each attempt of the delivery to `receiver`, as [HTTP status, error]. */
async function attemptsOf(receiver: Receiver): Promise<[number | null, string | null][]> {
  return (await deliveryTo(receiver)).log.map((entry) => [entry.httpStatus, entry.error]);
}

async function waitFor(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 300_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function settled(receiver: Receiver): Promise<boolean> {
  const delivery = await db().webhookDelivery.findFirst({ where: { url: receiver.url } });
  return delivery !== null && delivery.status !== "pending";
}

describe("webhook receivers that answer slowly, hugely or not at all", () => {
  // A −10% step at night 20: the upload of night 21 (index 21) makes it a regression, announced once per URL.
  const docs = nightlyDocuments({ seed: 7, series: "nightly-webhooks", flakeAt: 10, stepAt: 20 });
  const regressionAt = 21;

  it("a receiver dripping its answer holds only its own delivery: every other one, a retry included, is done while it still holds its connection", async () => {
    const verdicts: string[] = [];
    for (const doc of docs.slice(0, regressionAt + 1)) verdicts.push(await upload(doc));
    expect(verdicts[regressionAt - 1]).toBe("suspicious");
    expect(verdicts[regressionAt]).toBe("regression");

    await waitFor(
      async () => (await Promise.all([healthy, hugeAnswer, flaky, refusing].map(settled))).every(Boolean),
      "the deliveries to the other receivers",
    );
    // The dripping receiver still holds its first connection: no attempt of it has ended, its lease is held.
    expect(drip).toMatchObject({ started: true, closed: false });
    const held = await deliveryTo(dripping);
    expect(held).toMatchObject({ status: "pending", attempts: 0, log: [] });
    expect(held.leaseUntil).not.toBeNull();
    // …and meanwhile the others were answered, the 500 was retried and delivered, the 410 given up.
    expect(await attemptsOf(healthy)).toEqual([[200, null]]);
    expect((await deliveryTo(flaky)).status).toBe("delivered");
    expect((await deliveryTo(refusing)).status).toBe("failed");
    expect(healthy.bodies).toHaveLength(1);
  });

  it("the dripping answer ends at the attempt's deadline as a timeout, and the retry is delivered", async () => {
    await waitFor(async () => (await deliveryTo(dripping)).status === "delivered", "the dripping delivery's retry");
    expect(await attemptsOf(dripping)).toEqual([
      [200, `timed out after ${ATTEMPT_DEADLINE_MS} ms reading the answer`],
      [200, null],
    ]);
    const delivery = await deliveryTo(dripping);
    expect(delivery).toMatchObject({ status: "delivered", attempts: 2, leaseUntil: null });
    expect(delivery.deliveredAt).not.toBeNull();
    // The sender closed the dripping connection (the receiver would have gone on for ever), then sent again.
    expect(drip.closed).toBe(true);
    expect(drip.bytesDripped).toBeGreaterThan(0);
    expect(dripping.bodies).toHaveLength(2);
    expect(dripping.bodies[1]).toEqual(dripping.bodies[0]);
  });

  it("a 2xx with a huge body is delivered, and only the start of the body is read: the receiver is cut off early", async () => {
    const delivery = await deliveryTo(hugeAnswer);
    expect(delivery).toMatchObject({ status: "delivered", attempts: 1 });
    expect(await attemptsOf(hugeAnswer)).toEqual([[200, null]]);
    await waitFor(() => huge.closed, "the huge answer's connection to close");
    expect(huge.finished).toBe(false);
    // It got at least the cap out (the sender read that much), and then was stopped, far short of the whole.
    expect(huge.bytesWritten).toBeGreaterThanOrEqual(ANSWER_CAP_BYTES);
    expect(huge.bytesWritten).toBeLessThan(HUGE_BODY_BYTES / 16);
    expect(hugeAnswer.bodies).toHaveLength(1);
  });

  it("keeps the rules: a 5xx is retried, a 4xx is final, exactly one delivery per regression and URL", async () => {
    expect(await attemptsOf(flaky)).toEqual([
      [500, "HTTP 500: boom try again"],
      [200, null],
    ]);
    expect(flaky.bodies).toHaveLength(2);
    expect(flaky.bodies[1]).toEqual(flaky.bodies[0]);
    expect(await attemptsOf(refusing)).toEqual([[410, "HTTP 410: gone"]]);
    expect(await deliveryTo(refusing)).toMatchObject({ status: "failed", attempts: 1, deliveredAt: null });

    // The rest of the series: every upload is judged a regression again, and none is a new one.
    for (const doc of docs.slice(regressionAt + 1)) expect(await upload(doc)).toBe("regression");
    await sweepDeliveries();
    await stopDeliveries();

    const rows = await db().webhookDelivery.findMany({ orderBy: { id: "asc" } });
    expect(rows.map((row) => row.url).sort()).toEqual(
      [dripping, healthy, hugeAnswer, flaky, refusing].map((receiver) => receiver.url).sort(),
    );
    expect(new Set(rows.map((row) => row.changeId)).size).toBe(1);
    expect(rows.map((row) => row.status).sort()).toEqual([
      "delivered",
      "delivered",
      "delivered",
      "delivered",
      "failed",
    ]);
    const alertId = rows[0]!.changeId;
    for (const receiver of [dripping, healthy, hugeAnswer, flaky, refusing]) {
      expect(receiver.bodies.map((body) => body.alert_id)).toEqual(receiver.bodies.map(() => alertId));
    }
    // One POST each, but for the retried two (the drip's timeout, the 500), and the 410 not retried.
    expect([dripping, healthy, hugeAnswer, flaky, refusing].map((receiver) => receiver.bodies.length)).toEqual([
      2, 1, 1, 2, 1,
    ]);
  });
});
