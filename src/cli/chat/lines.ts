import { createInterface, type Interface } from 'node:readline/promises';

/**
 * Prompts piped to a chat, one per line (a terminal gets the `PromptEditor`). Lines that arrive while
 * a run is busy wait their turn. `next()` gives null once input has ended.
 */
export class LineSource {
  private readonly readline: Interface;
  private readonly queued: string[] = [];
  private waiter: ((line: string | null) => void) | null = null;
  private ended = false;

  constructor(input: NodeJS.ReadableStream) {
    this.readline = createInterface({ input, terminal: false, historySize: 0 });
    this.readline.on('line', (line) => this.deliver(line));
    this.readline.on('close', () => {
      this.ended = true;
      this.deliver(null);
    });
  }

  next(): Promise<string | null> {
    const line = this.queued.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (this.ended) return Promise.resolve(null);
    return new Promise((resolve) => {
      this.waiter = resolve;
    });
  }

  close(): void {
    this.readline.close();
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
