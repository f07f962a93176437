/**
 * Something read every interval while a load level runs: the server's /metrics (server-metrics.ts) and the GPUs'
 * power (power.ts). A reading just before the level is its baseline, one every interval while it runs is a
 * sample, and one just after it is its final reading; each is folded into the level as it comes, so nothing is
 * kept per reading. One reading at a time: a slow source skips ticks instead of piling readings up. A reading
 * that fails is counted, never thrown, so it never stops the benchmark.
 */

/** One reading, or why there is none. */
export type SampleAnswer<T> = { ok: true; reading: T } | { ok: false; error: string };

/** What a level folds its readings into: the one just before it, each one while it runs, the one just after it. */
export interface LevelFold<T, R> {
  baseline(reading: T): void;
  sample(reading: T): void;
  final(reading: T): void;
  result(): R;
}

export interface LevelSampleCounts {
  /** Readings tried during the level (the baseline and final ones included) and how many failed. */
  attempts: number;
  failed: number;
  /** The first failure's reason. */
  firstError?: string;
}

export class LevelSampler<T, R> {
  private timer: NodeJS.Timeout | null = null;
  private inFlight: Promise<void> | null = null;
  private attempts = 0;
  private failed = 0;
  private firstError: string | undefined;

  constructor(
    private readonly read: () => Promise<SampleAnswer<T>>,
    private readonly fold: LevelFold<T, R>,
    private readonly intervalMs: number,
  ) {}

  private async take(use: (reading: T) => void): Promise<void> {
    this.attempts += 1;
    const answer = await this.read();
    if (answer.ok) {
      use(answer.reading);
      return;
    }
    this.failed += 1;
    this.firstError ??= answer.error;
  }

  /** Take the baseline reading, then one every interval until `stop`. */
  async start(): Promise<void> {
    await this.take((reading) => this.fold.baseline(reading));
    this.timer = setInterval(() => {
      // One reading at a time: a slow source skips ticks instead of piling readings up.
      if (this.inFlight) return;
      this.inFlight = this.take((reading) => this.fold.sample(reading)).finally(() => {
        this.inFlight = null;
      });
    }, this.intervalMs);
    this.timer.unref();
  }

  /** Stop sampling (a reading started during the level still counts) and take the final reading. */
  async stop(): Promise<R & LevelSampleCounts> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.inFlight) await this.inFlight;
    await this.take((reading) => this.fold.final(reading));
    const result: R & LevelSampleCounts = { ...this.fold.result(), attempts: this.attempts, failed: this.failed };
    if (this.firstError !== undefined) result.firstError = this.firstError;
    return result;
  }
}

/** A level's sampler, started: its baseline reading taken. */
export async function startLevelSampler<T, R>(
  read: () => Promise<SampleAnswer<T>>,
  fold: LevelFold<T, R>,
  intervalMs: number,
): Promise<LevelSampler<T, R>> {
  const sampler = new LevelSampler(read, fold, intervalMs);
  await sampler.start();
  return sampler;
}
