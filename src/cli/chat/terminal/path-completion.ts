import { terminalName } from '../../safe-text.js';
import type { Paint } from '../../style.js';
import { SelectList, type Printable, type SelectStyle } from '../../tui/index.js';
import { atToken, rankPaths } from './completion.js';
import type { Key, PromptEditor } from './editor.js';

/** Completions shown at once. */
const COMPLETIONS = 8;

export type PathCompletionOptions = {
  paint: Paint;
  selectStyle: SelectStyle;
  /** The workspace's paths; called when a completion starts. */
  paths(): Promise<string[]>;
  /** Adds lines to the transcript (a listing that failed is said there). */
  print(render: Printable): void;
  refresh(): void;
};

/**
 * `@` path completion in the editor: typing `@` lists the workspace afresh and ranks its paths by what
 * follows the `@`; Up/Down choose, Tab or Enter take the path, Escape closes the list.
 */
export class PathCompletion {
  private completion: { start: number; query: string; list: SelectList<string> | null; closed: boolean } | null = null;
  private paths: string[] = [];

  constructor(private readonly options: PathCompletionOptions) {}

  /** A prompt was sent: the `@` being typed went with it. */
  clear(): void {
    this.completion = null;
  }

  /** After an edit: the `@` being typed before the cursor, if any, and its completions. */
  edited(beforeCursor: string): void {
    const token = atToken(beforeCursor);
    if (token === null) {
      this.completion = null;
    } else if (this.completion === null || this.completion.start !== token.start) {
      // A new `@`: list the workspace afresh, so files made since show up.
      this.completion = { start: token.start, query: token.query, list: null, closed: false };
      const asked = this.completion;
      this.options.paths().then(
        (paths) => {
          this.paths = paths;
          if (this.completion === asked) this.rank(asked);
          this.options.refresh();
        },
        (error: unknown) => this.options.print(() => [this.options.paint('red', `✗ @ completion: ${String((error as Error).message)}`)]),
      );
    } else if (this.completion.query !== token.query) {
      this.completion.query = token.query;
      this.rank(this.completion);
    }
  }

  /**
   * Keys the open completion list takes: Up/Down move, Tab or Enter take the path into `editor`, Escape
   * closes it. False when the key is not the list's (no list open, or nothing in it).
   */
  key(key: Key, editor: PromptEditor): boolean {
    const completion = this.completion;
    const list = completion?.list;
    if (completion === null || completion.closed || list === null || list === undefined || list.choices.length === 0) return false;
    if (key.name === 'escape') {
      completion.closed = true;
      return true;
    }
    if (key.name === 'tab' || (key.name === 'return' && !key.meta)) {
      const path = list.selected?.value;
      if (path === undefined) return false;
      // A folder stays open for more of its path; a file is done.
      editor.replace(completion.start, editor.caret, `@${path}${path.endsWith('/') ? '' : ' '}`);
      this.completion = null;
      this.edited(editor.beforeCursor);
      this.options.refresh();
      return true;
    }
    return list.key(key.name === 'up' || key.name === 'down' ? key.name : undefined);
  }

  /** The list as the live region shows it; null when none is open. */
  lines(width: number): string[] | null {
    if (this.completion === null || this.completion.closed || this.completion.list === null) return null;
    const list = this.completion.list;
    return list.choices.length === 0
      ? [this.options.paint('dim', `  no path matches @${this.completion.query}`)]
      : list.render(width, this.options.selectStyle);
  }

  private rank(completion: NonNullable<PathCompletion['completion']>): void {
    const { paint } = this.options;
    const found = rankPaths(completion.query, this.paths, COMPLETIONS);
    completion.list = new SelectList(
      // A file name is the workspace's, which a cloned repository chooses: one row each, nothing in it obeyed.
      found.map((path) => ({ label: paint(path.endsWith('/') ? 'blue' : [], terminalName(path)), value: path })),
      COMPLETIONS,
    );
  }
}
