const RETRIES = 5;
const FIRST_RETRY_MS = 1_000;

/**
 * The one-machine job queue: runs wait in order and at most `concurrency` execute at once. An
 * execution that fails (its end could not be stored) is tried again a few times, further apart each
 * time, as the job engine would.
 */
export class LocalQueue {
  private readonly waiting: Array<{ runId: string; tries: number }> = [];
  private readonly running = new Set<Promise<void>>();
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();
  private stopped = false;

  constructor(
    private readonly execute: (runId: string) => Promise<void>,
    private readonly concurrency: number,
    private readonly log: (message: string, error: unknown) => void,
  ) {}

  push(runId: string, tries = 0): void {
    if (this.stopped) return;
    this.waiting.push({ runId, tries });
    this.pump();
  }

  /** Takes no more runs; resolves once those under way have ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    await Promise.all([...this.running]);
  }

  private pump(): void {
    while (!this.stopped && this.running.size < this.concurrency && this.waiting.length > 0) {
      const { runId, tries } = this.waiting.shift()!;
      const done: Promise<void> = this.execute(runId)
        .catch((error: unknown) => {
          this.log(`run ${runId} could not be executed${tries < RETRIES ? '; trying again' : ''}`, error);
          if (tries >= RETRIES) return;
          const timer = setTimeout(
            () => {
              this.timers.delete(timer);
              this.push(runId, tries + 1);
            },
            FIRST_RETRY_MS * 2 ** tries,
          );
          timer.unref();
          this.timers.add(timer);
        })
        .finally(() => {
          this.running.delete(done);
          this.pump();
        });
      this.running.add(done);
    }
  }
}
