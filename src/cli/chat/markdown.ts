import type { Token, Tokens } from 'marked';
import { terminalText } from '../safe-text.js';
import type { Paint, StyleFormat } from '../style.js';
import { highlightCode } from './highlight.js';
import { clusterWidth, graphemes, textWidth } from '../tui/index.js';

type Format = Exclude<StyleFormat, readonly unknown[]>;
/** A run of text in one style; `\n` alone is a hard line break. */
type Segment = { text: string; style: Format[] };

const CODE_STYLE: Format[] = ['cyan'];

/**
 * Markdown as a terminal shows it: headings bold, emphasis italic, inline code in colour, code blocks
 * indented, never re-wrapped, and highlighted for their language once `loadHighlighter` has run, bullets and numbers for lists, a bar for quotes,
 * and prose wrapped at word boundaries to `width`. Parsing is marked's (its lexer only: no HTML is
 * made); every piece of text goes through `paint`, which writes steering characters out as escapes,
 * so model text can never act on the terminal, whatever Markdown it is wrapped in.
 */
export function renderMarkdown(source: string, width: number, paint: Paint): string {
  if (lex === undefined) throw new Error('renderMarkdown before loadMarkdown resolved');
  return blocks(lex(source), Math.max(20, width), paint).join('\n');
}

let lex: ((source: string) => Token[]) | undefined;
let loading: Promise<void> | undefined;

/**
 * Loads the parser, once. marked is imported only here, so a chat shows its first prompt without
 * paying for it: the chat starts this once the prompt is shown, the terminal view waits for it before
 * it shows any text, and a piped chat never loads it.
 */
export function loadMarkdown(): Promise<void> {
  loading ??= import('marked').then(
    ({ Lexer }) => {
      lex = (source) => new Lexer().lex(source);
    },
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

/** True once `loadMarkdown` finished. */
export function markdownReady(): boolean {
  return lex !== undefined;
}

/**
 * Markdown source shown as it is, only wrapped at word boundaries to `width` (a terminal with
 * `NO_COLOR`: plain text, but no word cut in two).
 */
export function wrapPlain(source: string, width: number): string {
  return source
    .split('\n')
    .flatMap((line) => {
      const indent = /^\s*/.exec(line)![0];
      return wrap([{ text: line.slice(indent.length), style: [] }], Math.max(10, width - indent.length)).map(
        (l) => indent + l.map((s) => s.text).join(''),
      );
    })
    .map(terminalText)
    .join('\n');
}

function blocks(tokens: Token[], width: number, paint: Paint): string[] {
  const out: string[] = [];
  for (const token of tokens) {
    const lines = block(token, width, paint);
    if (lines.length === 0) continue;
    if (out.length > 0) out.push('');
    out.push(...lines);
  }
  return out;
}

function block(token: Token, width: number, paint: Paint): string[] {
  switch (token.type) {
    case 'space':
      return [];
    case 'heading': {
      const t = token as Tokens.Heading;
      const style: Format[] = t.depth <= 2 ? ['bold', 'underline'] : ['bold'];
      return wrapped(inline(t.tokens, style), width, paint);
    }
    case 'paragraph':
      return wrapped(inline((token as Tokens.Paragraph).tokens, []), width, paint);
    case 'text': {
      const t = token as Tokens.Text;
      return wrapped(t.tokens !== undefined ? inline(t.tokens, []) : [{ text: t.text, style: [] }], width, paint);
    }
    case 'code': {
      const t = token as Tokens.Code;
      const lang = t.lang?.trim().split(/\s+/)[0];
      const label = lang ? [paint('dim', `  ${lang}`)] : [];
      const lines = highlightCode(t.text, lang, paint, CODE_STYLE[0]) ?? t.text.split('\n').map((line) => paint(CODE_STYLE, line));
      return [...label, ...lines.map((line) => `  ${line}`)];
    }
    case 'list':
      return list(token as Tokens.List, width, paint);
    case 'blockquote':
      return blocks((token as Tokens.Blockquote).tokens, width - 2, paint).map((line) => `${paint('dim', '│')} ${line}`);
    case 'hr':
      return [paint('dim', '─'.repeat(Math.min(width, 40)))];
    case 'table': {
      const t = token as Tokens.Table;
      const row = (cells: Tokens.TableCell[], style: Format[]) =>
        cells
          .map((cell) =>
            inline(cell.tokens, style)
              .map((s) => styled(s, paint))
              .join(''),
          )
          .join(paint('dim', ' │ '));
      return [row(t.header, ['bold']), ...t.rows.map((cells) => row(cells, []))];
    }
    default:
      // html and anything newer than this renderer: the source, as text.
      return wrapPlain(('raw' in token ? String(token.raw) : '').replace(/\n+$/, ''), width)
        .split('\n')
        .filter((l) => l !== '');
  }
}

function list(token: Tokens.List, width: number, paint: Paint): string[] {
  const start = typeof token.start === 'number' ? token.start : 1;
  const out: string[] = [];
  token.items.forEach((item, i) => {
    const marker = token.ordered ? `${start + i}. ` : item.task ? (item.checked ? '☑ ' : '☐ ') : '• ';
    const pad = ' '.repeat(marker.length);
    const body = item.loose
      ? blocks(item.tokens, width - marker.length, paint)
      : item.tokens.flatMap((t) => block(t, width - marker.length, paint));
    body.forEach((line, j) => out.push(`${j === 0 ? paint('dim', marker) : pad}${line}`));
    if (body.length === 0) out.push(paint('dim', marker.trimEnd()));
  });
  return out;
}

function inline(tokens: Token[] | undefined, style: Format[]): Segment[] {
  const out: Segment[] = [];
  for (const token of tokens ?? []) {
    switch (token.type) {
      case 'strong':
        out.push(...inline((token as Tokens.Strong).tokens, [...style, 'bold']));
        break;
      case 'em':
        out.push(...inline((token as Tokens.Em).tokens, [...style, 'italic']));
        break;
      case 'del':
        out.push(...inline((token as Tokens.Del).tokens, [...style, 'strikethrough']));
        break;
      case 'codespan':
        out.push({ text: (token as Tokens.Codespan).text, style: [...style, ...CODE_STYLE] });
        break;
      case 'br':
        out.push({ text: '\n', style });
        break;
      case 'link': {
        const t = token as Tokens.Link;
        out.push(...inline(t.tokens, [...style, 'underline']));
        if (t.href !== t.text) out.push({ text: ` (${t.href})`, style: [...style, 'dim'] });
        break;
      }
      case 'image': {
        const t = token as Tokens.Image;
        out.push({ text: `[image: ${t.text}] (${t.href})`, style: [...style, 'dim'] });
        break;
      }
      case 'text': {
        const t = token as Tokens.Text;
        if (t.tokens !== undefined) out.push(...inline(t.tokens, style));
        else out.push({ text: t.text, style });
        break;
      }
      default:
        // escape, html, and anything unknown: the text itself.
        out.push({ text: 'text' in token ? String(token.text) : String(token.raw), style });
    }
  }
  return out;
}

function wrapped(segments: Segment[], width: number, paint: Paint): string[] {
  return wrap(segments, width).map((line) => line.map((s) => styled(s, paint)).join(''));
}

function styled(segment: Segment, paint: Paint): string {
  return segment.style.length === 0 ? terminalText(segment.text) : paint(segment.style, segment.text);
}

/** True when `source` opens a fenced code block that names a language: worth loading the highlighter for. */
export function hasLanguageFence(source: string): boolean {
  return /^ {0,3}(?:`{3,}|~{3,})[ \t]*[\w+#.-]/m.test(source);
}

/**
 * Where the complete blocks of streaming Markdown end: after the last blank line outside a code fence,
 * or after a closing fence. What follows may still grow (a paragraph, a list, an open fence).
 */
export function completeBlocksEnd(text: string): number {
  let fence: string | null = null;
  let end = 0;
  let at = 0;
  const lines = text.split('\n');
  // The last piece has no newline yet: it is never complete.
  for (const line of lines.slice(0, -1)) {
    at += line.length + 1;
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === null) {
      if (marker !== undefined) fence = marker;
      else if (line.trim() === '') end = at;
    } else if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) {
      fence = null;
      end = at;
    }
  }
  return end;
}

const widthOf = textWidth;

/** The longest head of `word` that fits `room` columns (at least one cluster), and the rest. */
function cutWord(word: string, room: number): [string, string] {
  const clusters = graphemes(word);
  let used = 0;
  let n = 0;
  while (n < clusters.length && used + clusterWidth(clusters[n]) <= room) used += clusterWidth(clusters[n++]);
  n = Math.max(1, n);
  return [clusters.slice(0, n).join(''), clusters.slice(n).join('')];
}

/**
 * Lines of at most `width` columns (wide characters count two), broken at spaces (a word longer than a line is cut); a soft line
 * break of the source is a space, a hard one (`\n` segment) a new line. Styles follow their words.
 */
function wrap(segments: Segment[], width: number): Segment[][] {
  const lines: Segment[][] = [];
  let line: Segment[] = [];
  let used = 0;
  let pendingSpace: Segment | null = null;
  const newLine = () => {
    lines.push(line);
    line = [];
    used = 0;
    pendingSpace = null;
  };
  for (const segment of segments) {
    if (segment.text === '\n') {
      newLine();
      continue;
    }
    for (const piece of segment.text.replace(/\n/g, ' ').split(/( +)/)) {
      if (piece === '') continue;
      if (piece.startsWith(' ')) {
        if (used > 0) pendingSpace = { text: ' ', style: segment.style };
        continue;
      }
      let word = piece;
      const spaceWidth = pendingSpace === null ? 0 : 1;
      if (used > 0 && used + spaceWidth + widthOf(word) > width) newLine();
      if (pendingSpace !== null) {
        line.push(pendingSpace);
        used += 1;
        pendingSpace = null;
      }
      while (widthOf(word) > width - used) {
        const [head, rest] = cutWord(word, width - used);
        line.push({ text: head, style: segment.style });
        newLine();
        word = rest;
      }
      if (word !== '') {
        line.push({ text: word, style: segment.style });
        used += widthOf(word);
      }
    }
  }
  if (line.length > 0 || lines.length === 0) lines.push(line);
  return lines;
}
