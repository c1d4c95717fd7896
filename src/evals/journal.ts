// The journal that makes an evaluation durable: a JSONL file whose first line names the evaluation and
// its run id (so a resumed run reopens the same sessions, `<name>-<run>-<case id>`) and whose later
// lines are the cases that finished, each flushed to disk (fsync) before the case counts as done. A
// process killed at any moment leaves a journal whose every case line is whole, at worst followed by
// one torn line, which is cut off on reopening.
import { closeSync, fsyncSync, openSync } from 'node:fs';
import { mkdir, open, readFile, truncate, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { EvalJournalError } from './errors.js';
import type { CaseResult } from './types.js';

type Header = { kind: 'evaluation'; name: string; runId: string; startedAt: string };
type CaseLine = { kind: 'case'; result: CaseResult };

export type OpenedJournal = {
  journal: EvalJournal;
  runId: string;
  startedAt: string;
  /** The cases an earlier process finished, by id: not run again. */
  finished: Map<string, CaseResult>;
  /** True when the file was there already: the evaluation picks up an earlier run. */
  resumed: boolean;
};

type Waiting = { text: string; done: () => void; failed: (error: unknown) => void };

export class EvalJournal {
  #writes: Promise<void> = Promise.resolve();
  /** Lines handed in while a write was on its way to disk: the next write takes them all, with one fsync. */
  #waiting: Waiting[] = [];

  private constructor(
    readonly file: string,
    readonly handle: FileHandle,
  ) {}

  /**
   * Opens `file` for evaluation `name`: an existing journal gives its run id and finished cases (and
   * must be this evaluation's, over these case ids); a missing one is created with `fresh`'s run id.
   */
  static async open(
    file: string,
    name: string,
    ids: readonly string[],
    fresh: { runId: string; startedAt: string },
  ): Promise<OpenedJournal> {
    let text: string | undefined;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
        throw new EvalJournalError(`cannot read the journal ${file}: ${(error as Error).message}`, { cause: error });
    }
    if (text === undefined || text === '') {
      await mkdir(dirname(file), { recursive: true });
      const handle = await openFile(file);
      const journal = new EvalJournal(file, handle);
      await journal.#append({ kind: 'evaluation', name, ...fresh } satisfies Header);
      // The file's own entry in its folder must survive the crash too, or the next run starts afresh.
      syncFolder(dirname(file));
      return { journal, ...fresh, finished: new Map(), resumed: false };
    }
    // A kill mid-append leaves a last line without its newline: cut it off, or the next line would join it.
    const whole = text.endsWith('\n') ? text : text.slice(0, text.lastIndexOf('\n') + 1);
    if (whole.length < text.length) await truncate(file, Buffer.byteLength(whole));
    const lines = whole.split('\n').filter((line) => line !== '');
    const parsed = lines.map((line, i) => {
      try {
        return JSON.parse(line) as Header | CaseLine;
      } catch (error) {
        throw new EvalJournalError(`${file}:${i + 1}: not JSON (${(error as Error).message})`, { cause: error });
      }
    });
    const header = parsed[0];
    if (header?.kind !== 'evaluation' || typeof header.runId !== 'string')
      throw new EvalJournalError(`${file} is not an evaluation journal (its first line names no evaluation)`);
    if (header.name !== name)
      throw new EvalJournalError(
        `${file} is the journal of evaluation "${header.name}", not "${name}": give this one a journal of its own`,
      );
    const known = new Set(ids);
    const finished = new Map<string, CaseResult>();
    parsed.slice(1).forEach((line, i) => {
      if (line.kind !== 'case' || typeof line.result?.id !== 'string') throw new EvalJournalError(`${file}:${i + 2}: not a finished case`);
      if (!known.has(line.result.id))
        throw new EvalJournalError(
          `${file}:${i + 2}: case "${line.result.id}" is not in the data: the dataset changed since this journal was written`,
        );
      finished.set(line.result.id, line.result);
    });
    return {
      journal: new EvalJournal(file, await openFile(file)),
      runId: header.runId,
      startedAt: header.startedAt,
      finished,
      resumed: true,
    };
  }

  /** Appends a finished case and waits until it is on disk: only then does the case count as done. */
  record(result: CaseResult): Promise<void> {
    return this.#append({ kind: 'case', result } satisfies CaseLine);
  }

  close(): Promise<void> {
    return this.#writes.then(() => this.handle.close());
  }

  // One append at a time, so concurrent cases never interleave their lines. The lines that arrive while
  // one is being written go together in the next (one write, one fsync for all of them): each line is
  // still on disk before its promise resolves, and none is written twice.
  #append(line: Header | CaseLine): Promise<void> {
    return new Promise<void>((done, failed) => {
      this.#waiting.push({ text: `${JSON.stringify(line)}\n`, done, failed });
      if (this.#waiting.length === 1) this.#writes = this.#writes.then(() => this.#flush());
    });
  }

  async #flush(): Promise<void> {
    const batch = this.#waiting;
    this.#waiting = [];
    try {
      await this.handle.appendFile(batch.map((w) => w.text).join(''));
      await this.handle.datasync();
    } catch (error) {
      const failure = new EvalJournalError(`cannot append to the journal ${this.file}: ${(error as Error).message}`, { cause: error });
      for (const w of batch) w.failed(failure);
      return;
    }
    for (const w of batch) w.done();
  }
}

async function openFile(file: string): Promise<FileHandle> {
  try {
    return await open(file, 'a');
  } catch (error) {
    throw new EvalJournalError(`cannot open the journal ${file}: ${(error as Error).message}`, { cause: error });
  }
}

function syncFolder(folder: string): void {
  const fd = openSync(folder, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
