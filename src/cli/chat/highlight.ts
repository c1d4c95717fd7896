import type { HLJSApi } from 'highlight.js';
import type { Paint, StyleFormat } from '../style.js';

type Format = Exclude<StyleFormat, readonly unknown[]>;

/** highlight.js's token classes, as terminal colours. A token of a class not here keeps the code colour. */
const CLASS_STYLE: Record<string, Format> = {
  keyword: 'magenta',
  built_in: 'cyan',
  type: 'cyan',
  literal: 'yellow',
  number: 'yellow',
  string: 'green',
  regexp: 'red',
  symbol: 'yellow',
  comment: 'gray',
  doc: 'gray',
  meta: 'gray',
  title: 'blue',
  section: 'blue',
  name: 'blue',
  tag: 'blue',
  attr: 'yellow',
  attribute: 'yellow',
  property: 'yellow',
  variable: 'red',
  params: 'white',
  addition: 'green',
  deletion: 'red',
  bullet: 'yellow',
  quote: 'gray',
  template_variable: 'red',
  selector_tag: 'blue',
  selector_class: 'yellow',
  selector_id: 'yellow',
};

let hljs: HLJSApi | undefined;
let loading: Promise<void> | undefined;

/** True once `loadHighlighter` finished: `highlightCode` highlights from then on. */
export function highlighterReady(): boolean {
  return hljs !== undefined;
}

/**
 * Loads highlight.js (its ~40 common languages), once. It costs about half a second to import, so the
 * chat starts it at the first code fence of a reply, never before the first prompt. A failure rejects
 * (the chat says so) and the next call tries again.
 */
export function loadHighlighter(): Promise<void> {
  loading ??= import('highlight.js/lib/common').then(
    (module) => {
      hljs = (module as unknown as { default: HLJSApi }).default;
    },
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

/**
 * The lines of `code` in colour for `lang`, or undefined when the highlighter is not loaded or does
 * not know the language (the caller shows the code in its plain code colour). Every piece of text goes
 * through `paint`, which writes steering characters out as escapes.
 */
export function highlightCode(code: string, lang: string | undefined, paint: Paint, base: Format): string[] | undefined {
  if (hljs === undefined || lang === undefined || lang === '' || hljs.getLanguage(lang) === undefined) return undefined;
  const html = hljs.highlight(code, { language: lang, ignoreIllegals: true }).value;
  const lines: string[] = [];
  let line = '';
  // The classes of the spans open at this point; a span can run over several lines (a block comment).
  const open: Array<Format | null> = [];
  const style = () => open.findLast((s) => s !== null) ?? base;
  const emit = (text: string) => {
    const pieces = decode(text).split('\n');
    pieces.forEach((piece, i) => {
      if (i > 0) {
        lines.push(line);
        line = '';
      }
      if (piece !== '') line += paint(style(), piece);
    });
  };
  let at = 0;
  for (const match of html.matchAll(/<span class="([^"]*)">|<\/span>/g)) {
    emit(html.slice(at, match.index));
    at = match.index + match[0].length;
    if (match[1] === undefined) open.pop();
    else open.push(styleOf(match[1]));
  }
  emit(html.slice(at));
  lines.push(line);
  return lines;
}

/** `hljs-title function_` -> the style of its first known class. */
function styleOf(classes: string): Format | null {
  for (const name of classes.split(/\s+/)) {
    const style =
      CLASS_STYLE[
        name
          .replace(/^hljs-/, '')
          .replace(/_$/, '')
          .replace(/-/g, '_')
      ];
    if (style !== undefined) return style;
  }
  return null;
}

function decode(html: string): string {
  return html.replace(/&(lt|gt|amp|quot|#x27|#39);/g, (_, name: string) =>
    name === 'lt' ? '<' : name === 'gt' ? '>' : name === 'amp' ? '&' : name === 'quot' ? '"' : "'",
  );
}
