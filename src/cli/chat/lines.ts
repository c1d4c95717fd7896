import { createInterface, type Interface } from 'node:readline/promises';

/**
 * Prompts from the user, one line at a time, from a terminal or a pipe alike. Lines typed (or piped)
 * while a run is busy wait their turn. `next()` gives null once input has ended (Ctrl-D, end of pipe).
 */
export class LineSource {
  readonly readline: Interface;
  private readonly queued: string[] = [];
  private waiter: ((line: string | null) => void) | null = null;
  private ended = false;

  constructor(input: NodeJS.ReadableStream, output: NodeJS.WritableStream, readonly terminal: boolean) {
    this.readline = createInterface({ input, output: terminal ? output : undefined, terminal, historySize: terminal ? 100 : 0 });
    this.readline.on('line', (line) => this.deliver(line));
    this.readline.on('close', () => {
      this.ended = true;
      this.deliver(null);
    });
  }

  /** The next line; on a terminal the prompt is shown first. */
  next(prompt: string): Promise<string | null> {
    const line = this.queued.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (this.ended) return Promise.resolve(null);
    if (this.terminal) {
      this.readline.setPrompt(prompt);
      this.readline.prompt();
    }
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
