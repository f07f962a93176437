/**
 * The periodic sampler behind a level's server metrics and GPU power (lib/bench/level-sampler.ts): a baseline
 * reading before the level, one every interval while it runs (never two at once), a final one after `stop`, which
 * waits for a reading still in flight; failed readings are counted, the first one's reason kept. Real timers; the
 * tests wait for states, never for a time.
 */
import { describe, expect, it } from "vitest";
import { type LevelFold, type SampleAnswer, startLevelSampler } from "@/lib/bench/level-sampler";

const INTERVAL_MS = 5;

/** Records what was folded, in order. */
function recordingFold(): LevelFold<number, { events: string[] }> & { events: string[] } {
  const events: string[] = [];
  return {
    events,
    baseline: (reading) => events.push(`baseline ${reading}`),
    sample: (reading) => events.push(`sample ${reading}`),
    final: (reading) => events.push(`final ${reading}`),
    result: () => ({ events: [...events] }),
  };
}

/** A reader whose every reading waits until the test answers it. */
function manualReader() {
  const pending: ((answer: SampleAnswer<number>) => void)[] = [];
  let calls = 0;
  let inFlight = 0;
  let mostInFlight = 0;
  return {
    get calls() {
      return calls;
    },
    get mostInFlight() {
      return mostInFlight;
    },
    read: () =>
      new Promise<SampleAnswer<number>>((resolve) => {
        calls += 1;
        inFlight += 1;
        mostInFlight = Math.max(mostInFlight, inFlight);
        pending.push((answer) => {
          inFlight -= 1;
          resolve(answer);
        });
      }),
    /** Answer the oldest reading still waiting. */
    answer(answer: SampleAnswer<number>) {
      const next = pending.shift();
      if (!next) throw new Error("no reading is waiting");
      next(answer);
    },
    get waiting() {
      return pending.length;
    },
  };
}

/** Lets timers and I/O callbacks run a few times over (several intervals pass). */
const severalIntervals = () => new Promise((resolve) => setTimeout(resolve, INTERVAL_MS * 10));

describe("LevelSampler", () => {
  it("takes the baseline before it starts, a reading every interval while it runs and the final one at stop", async () => {
    let reading = 0;
    const fold = recordingFold();
    const sampler = await startLevelSampler(async () => ({ ok: true, reading: ++reading }) as const, fold, INTERVAL_MS);
    expect(fold.events).toEqual(["baseline 1"]);

    await expect.poll(() => fold.events.filter((event) => event.startsWith("sample")).length).toBeGreaterThanOrEqual(3);
    const result = await sampler.stop();
    const samples = result.events.length - 2;
    expect(result.events).toEqual([
      "baseline 1",
      ...Array.from({ length: samples }, (_, index) => `sample ${index + 2}`),
      `final ${samples + 2}`,
    ]);
    expect(result).toEqual({ events: result.events, attempts: samples + 2, failed: 0 });
    expect("firstError" in result).toBe(false);

    // Stopped: no reading after the final one.
    await severalIntervals();
    expect(reading).toBe(samples + 2);
  });

  it("never has two readings in flight, and stop waits for the one in flight before the final reading", async () => {
    const reader = manualReader();
    const fold = recordingFold();
    const starting = startLevelSampler(reader.read, fold, INTERVAL_MS);
    await expect.poll(() => reader.waiting).toBeGreaterThanOrEqual(1);
    expect(reader.calls).toBe(1);
    reader.answer({ ok: true, reading: 1 });
    const sampler = await starting;

    // The first sample is taken and not answered: later ticks skip instead of reading again.
    await expect.poll(() => reader.calls).toBeGreaterThanOrEqual(2);
    await severalIntervals();
    expect(reader.calls).toBe(2);
    expect(reader.mostInFlight).toBe(1);

    let stopped = false;
    const stopping = sampler.stop().then((result) => {
      stopped = true;
      return result;
    });
    await severalIntervals();
    expect(stopped).toBe(false);
    expect(reader.calls).toBe(2);

    // The sample in flight still counts; only then is the final reading taken.
    reader.answer({ ok: true, reading: 2 });
    await expect.poll(() => reader.calls).toBeGreaterThanOrEqual(3);
    expect(reader.calls).toBe(3);
    expect(fold.events).toEqual(["baseline 1", "sample 2"]);
    expect(stopped).toBe(false);
    reader.answer({ ok: true, reading: 3 });
    const result = await stopping;
    expect(result).toEqual({ events: ["baseline 1", "sample 2", "final 3"], attempts: 3, failed: 0 });
    expect(reader.mostInFlight).toBe(1);
  });

  it("counts failed readings, keeps the first one's reason and folds only the readings that came", async () => {
    let calls = 0;
    const fold = recordingFold();
    const read = async (): Promise<SampleAnswer<number>> => {
      calls += 1;
      return calls % 2 === 1 ? { ok: false, error: `failure ${calls}` } : { ok: true, reading: calls };
    };
    const sampler = await startLevelSampler(read, fold, INTERVAL_MS);
    expect(fold.events).toEqual([]);

    await expect.poll(() => calls).toBeGreaterThanOrEqual(4);
    const result = await sampler.stop();
    expect(result.attempts).toBe(calls);
    expect(result.failed).toBe(Math.ceil(calls / 2));
    expect(result.firstError).toBe("failure 1");
    expect(result.events).toEqual(
      Array.from({ length: Math.floor(calls / 2) }, (_, index) => {
        const call = 2 * (index + 1);
        return call === calls ? `final ${call}` : `sample ${call}`;
      }),
    );
  });
});
