import { realpathSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';

/**
 * Options that make a command write a file it names, wherever that file is: `git diff --output=.git/hooks/
 * pre-commit` turns a read-only rule into code that runs later, so a rule never approves one.
 */
const WRITING_OPTIONS = new Set([
  '--output',
  '--output-file',
  '--output-dir',
  '--output-directory',
  '--out',
  '--outfile',
  '--out-file',
  '--outdir',
  '--out-dir',
  '--log-file',
]);

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

type Word = { text: string; expands: boolean; assigns: boolean };

/**
 * Why the simple command `command`, run in the folder `root`, may reach past what an approval rule
 * approved, or undefined when it cannot: an option that writes a named file (`--output`, `-o`), an
 * argument (or an option's value, `--opt=VALUE`, `-xVALUE`) naming a path outside `root` (absolute,
 * `~`, `..` escaping it, or a symlink leading out), a word the shell would expand (`$VAR`, a glob,
 * `{a,b}`), since where it leads is known only once the shell runs, and environment assignments before
 * the command (`GIT_EXTERNAL_DIFF=...`). The program word itself is the rule's to name. The command is
 * already known to hold no chaining, piping, redirection or substitution.
 */
export function reachBeyond(command: string, root: string): string | undefined {
  const words = shellWords(command);
  if (words === undefined) return 'an unterminated quote';
  const program = words.findIndex((word) => !word.assigns);
  if (program !== 0) return 'it sets environment variables for the command';
  const inside = insideCheck(root);
  for (const word of words.slice(1)) {
    if (word.expands) return `${word.text} is expanded by the shell`;
    const text = word.text;
    const name = text.startsWith('--') ? text.split('=', 1)[0]! : undefined;
    if (name !== undefined && WRITING_OPTIONS.has(name)) return `${text} writes a file`;
    if (/^-o/.test(text)) return `${text} writes a file`;
    const values = [text];
    const eq = text.indexOf('=');
    if (eq >= 0) values.push(text.slice(eq + 1));
    // A short option's attached value (`-O/etc/order`, `-I../include`).
    if (/^-[A-Za-z]./.test(text)) values.push(text.slice(2));
    for (const value of values) if (!inside(value)) return `${text} names a path outside the workspace`;
  }
  return undefined;
}

/** Whether a path, as the shell's working folder `root` resolves it, stays in `root`, symlinks followed. */
function insideCheck(root: string): (path: string) => boolean {
  const home = resolve(root);
  let real: string | null | false | undefined;
  const realRoot = (): string | null | false => {
    if (real === undefined) real = realOf(home);
    return real;
  };
  return (path) => {
    if (path === '') return true;
    if (path.startsWith('~')) return false;
    const target = resolve(home, path);
    if (!contains(home, target)) return false;
    // The nearest folder that exists along it decides where it leads: a repo's `link -> /etc` makes
    // `link/shadow` (or a file to be made under it) lie outside although it reads as inside.
    let at = target;
    for (;;) {
      const found = realOf(at);
      if (found === false) return false;
      if (found !== null) {
        const rootReal = realRoot();
        return typeof rootReal === 'string' && contains(rootReal, found);
      }
      if (at === home) return false;
      at = dirname(at);
    }
  };
}

function contains(folder: string, path: string): boolean {
  const rel = relative(folder, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/**
 * `path` with its symlinks resolved; null when no such path exists; false when it cannot be looked at
 * (EACCES and the like), where it leads cannot be told and the caller counts it as outside.
 */
function realOf(path: string): string | null | false {
  try {
    return realpathSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? null : false;
  }
}

/**
 * The words of a simple command as the shell splits them: quotes and backslashes removed; `expands`
 * when an unquoted or double-quoted `$`, an unquoted glob character, a brace or a leading `~` (also after
 * `=` or `:`) would make the shell rewrite it. Undefined when a quote is left open.
 */
function shellWords(command: string): Word[] | undefined {
  const words: Word[] = [];
  let text = '';
  let expands = false;
  let started = false;
  let quote: "'" | '"' | null = null;
  const end = () => {
    if (started) words.push({ text, expands, assigns: ASSIGNMENT.test(text) && !expands });
    text = '';
    expands = false;
    started = false;
  };
  for (let i = 0; i < command.length; i += 1) {
    const c = command[i]!;
    if (quote === "'") {
      if (c === "'") quote = null;
      else text += c;
      continue;
    }
    if (quote === '"') {
      if (c === '"') quote = null;
      else if (c === '\\' && i + 1 < command.length && '$`"\\\n'.includes(command[i + 1]!)) text += command[++i];
      else {
        if (c === '$') expands = true;
        text += c;
      }
      continue;
    }
    if (c === ' ' || c === '\t') {
      end();
      continue;
    }
    started = true;
    if (c === "'" || c === '"') quote = c;
    else if (c === '\\') {
      if (i + 1 < command.length) text += command[++i];
    } else {
      if ('$*?[{}'.includes(c)) expands = true;
      if (c === '~' && (text === '' || text.endsWith('=') || text.endsWith(':'))) expands = true;
      text += c;
    }
  }
  if (quote !== null) return undefined;
  end();
  return words;
}
