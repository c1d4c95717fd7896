// Runs the real `indusagi` command on a pseudo-terminal: util-linux `script` (in Debian's essential
// bsdutils, so on every machine CI runs on) allocates it, runs the command on it, forwards what the
// test writes as keystrokes and copies the screen output back. No native module is needed.
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync, readlinkSync } from 'node:fs';
import { onTestFailed } from 'vitest';
import { VtScreen } from '../support/vt-screen.js';
import { OutputWatch, cliArgv, withUserConfig } from './output-watch.js';

const quote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`;

export class PtyCli {
  readonly child: ChildProcessWithoutNullStreams;
  /** Everything written to the terminal, escape sequences included. */
  output = '';
  readonly finished: Promise<number | null>;
  /** The terminal as a person sees it: everything written so far, drawn on a screen of the pty's size. */
  readonly screen: VtScreen;
  private readonly watch = new OutputWatch();
  /** What the last `waitForScreen` waited for, for the report of a test that failed. */
  private awaited = 'nothing';

  /** `env` is laid over the test's environment without Anthropic settings or NO_COLOR. */
  constructor(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}, size = { cols: 80, rows: 40 }) {
    this.screen = new VtScreen(size.cols, size.rows);
    // A wait that never ends shows as a timeout: say what was awaited and what the screen showed.
    onTestFailed(() => {
      console.error(`waiting for: ${this.awaited}\n${this.screen.all().join('\n')}\n(cursor at ${this.screen.row},${this.screen.col})`);
    });
    const base = { ...process.env };
    delete base.ANTHROPIC_API_KEY;
    delete base.ANTHROPIC_BASE_URL;
    delete base.NO_COLOR;
    const command = [process.execPath, ...cliArgv(args)].map(quote).join(' ');
    this.child = spawn('script', ['-qfec', `stty cols ${size.cols} rows ${size.rows} && exec ${command}`, '/dev/null'], {
      cwd,
      env: withUserConfig(base, { TERM: 'xterm-256color', ...env }),
    });
    this.child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      this.output += chunk;
      this.screen.feed(chunk);
      this.watch.grew();
    });
    this.finished = new Promise((resolve, reject) => {
      this.child.once('error', reject);
      this.child.once('close', (code) => resolve(code));
    });
  }

  /** Keystrokes, as a terminal sends them (`\r` for Enter, `\x1b[A` for Up, …). */
  type(keys: string): void {
    this.child.stdin.write(keys);
  }

  /** A paste, as a terminal in bracketed paste mode sends it. */
  paste(text: string): void {
    this.type(`\x1b[200~${text}\x1b[201~`);
  }

  /**
   * Resolves once the screen (its scrollback included) satisfies `test`, checked as output arrives;
   * rejects if the command ends first, showing the screen.
   */
  waitForScreen(what: string, test: (screen: VtScreen) => boolean): Promise<void> {
    this.awaited = what;
    return this.watch
      .waitFor(
        () => (test(this.screen) ? 'yes' : ''),
        /yes/,
        this.finished,
        () => `the terminal ended without showing ${what}:\n${this.screen.all().join('\n')}`,
      )
      .then(() => undefined);
  }

  /**
   * Resizes the pseudo-terminal (as a terminal window does: the command gets SIGWINCH) and the screen
   * model with it. Call it while the command is idle, so no output drawn for the old size is in flight.
   */
  resize(cols: number, rows: number): void {
    const pts = readlinkSync(`/proc/${this.commandPid()}/fd/0`);
    this.screen.resize(cols, rows);
    execFileSync('stty', ['-F', pts, 'cols', String(cols), 'rows', String(rows)]);
  }

  /** The pid of the command itself (script's child, which exec'd it). */
  commandPid(): number {
    const children = readFileSync(`/proc/${this.child.pid}/task/${this.child.pid}/children`, 'utf8').trim().split(/\s+/);
    return Number(children[0]);
  }

  /** Resolves once the output after `from` (an offset into `output`) matches `pattern`. */
  waitFor(pattern: RegExp, from = 0): Promise<RegExpMatchArray> {
    return this.watch.waitFor(
      () => this.output.slice(from),
      pattern,
      this.finished,
      () => `the terminal ended without showing ${pattern}:\n${this.output}`,
    );
  }
}

/** Our colour codes (SGR), for reading the text under them. */
export const SGR = /\x1b\[[0-9;]*m/g;

/**
 * The lines as they end up on screen, roughly: a carriage return goes back to the line's start and what
 * follows overwrites, an erase (`ESC[2K`, `ESC[J`) clears the line, colour and cursor moves are dropped.
 */
export function screenLines(raw: string): string[] {
  return raw
    .replace(SGR, '')
    .replace(/\r\n/g, '\n')
    .split('\n')
    .map((line) => {
      let shown = '';
      for (const piece of line.split('\r')) {
        if (/^\x1b\[(?:2K|J)/.test(piece)) shown = '';
        const text = piece.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
        shown = text + shown.slice(text.length);
      }
      return shown;
    });
}
