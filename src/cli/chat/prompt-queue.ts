/**
 * Prompts waiting for the chat: lines that arrived while a run was busy wait their turn, and one
 * reader at a time waits for the next. Both input sources (piped lines, the terminal editor) feed one.
 */
export class PromptQueue {
  private readonly queued: string[] = [];
  private waiter: ((line: string | null) => void) | null = null;
  private done = false;

  get ended(): boolean {
    return this.done;
  }

  /** A prompt that is there now, null once input ended, or undefined: then `wait()` for the next. */
  ready(): string | null | undefined {
    const line = this.queued.shift();
    if (line !== undefined) return line;
    return this.done ? null : undefined;
  }

  wait(): Promise<string | null> {
    return new Promise((resolve) => {
      this.waiter = resolve;
    });
  }

  push(line: string): void {
    this.deliver(line);
  }

  /** Input ended: a waiting reader gets null, and so does every later one once the queue is empty. */
  end(): void {
    this.done = true;
    this.deliver(null);
  }

  private deliver(line: string | null): void {
    const waiter = this.waiter;
    if (waiter !== null) {
      this.waiter = null;
      waiter(line);
    } else if (line !== null) {
      this.queued.push(line);
    }
  }
}
