import { createInterface, type Interface } from 'node:readline/promises';
import { PromptQueue } from './prompt-queue.js';

/**
 * Prompts piped to a chat, one per line (a terminal gets the `PromptEditor`). Lines that arrive while
 * a run is busy wait their turn. `next()` gives null once input has ended.
 */
export class LineSource {
  private readonly readline: Interface;
  private readonly prompts = new PromptQueue();

  constructor(input: NodeJS.ReadableStream) {
    this.readline = createInterface({ input, terminal: false, historySize: 0 });
    this.readline.on('line', (line) => this.prompts.push(line));
    this.readline.on('close', () => this.prompts.end());
  }

  next(): Promise<string | null> {
    const ready = this.prompts.ready();
    return ready !== undefined ? Promise.resolve(ready) : this.prompts.wait();
  }

  close(): void {
    this.readline.close();
  }
}
