// How many terminal columns text takes: per grapheme cluster (what a person sees as one character),
// two for East Asian wide and fullwidth characters and for emoji, none for combining marks.

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** Our own SGR colour codes and other CSI sequences take no room on screen. */
const CSI = /\x1b\[[0-9;?]*[ -/]*[@-~]/g;

// Wide by East Asian Width (W or F), outside the emoji that `\p{Emoji_Presentation}` covers: Hangul
// Jamo, CJK radicals to Yi (punctuation, kana, Bopomofo, ideographs, Hangul syllables), compatibility
// ideographs, vertical and small forms, fullwidth forms, Tangut and Khitan, the kana supplements and
// the ideograph planes 2 and 3. Unicode 15 ranges; a character added later shows narrow until listed.
const WIDE_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x1100, 0x115f],
  [0x231a, 0x231b],
  [0x2329, 0x232a],
  [0x2e80, 0x303e],
  [0x3041, 0x33ff],
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xa000, 0xa4cf],
  [0xa960, 0xa97f],
  [0xac00, 0xd7a3],
  [0xf900, 0xfaff],
  [0xfe10, 0xfe19],
  [0xfe30, 0xfe6f],
  [0xff00, 0xff60],
  [0xffe0, 0xffe6],
  [0x16fe0, 0x16fe4],
  [0x17000, 0x18cff],
  [0x1aff0, 0x1b2ff],
  [0x1f200, 0x1f2ff],
  [0x20000, 0x2fffd],
  [0x30000, 0x3fffd],
];

const EMOJI_PRESENTATION = /\p{Emoji_Presentation}/u;
const PICTOGRAPHIC = /\p{Extended_Pictographic}/u;
const REGIONAL_INDICATOR = /\p{Regional_Indicator}/u;
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}\u200b\u1160-\u11ff]$/u;
const VS16 = '\ufe0f';
const KEYCAP = '\u20e3';

function isWideCodePoint(cp: number): boolean {
  let lo = 0;
  let hi = WIDE_RANGES.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const [start, end] = WIDE_RANGES[mid];
    if (cp < start) hi = mid - 1;
    else if (cp > end) lo = mid + 1;
    else return true;
  }
  return false;
}

/**
 * Columns one grapheme cluster takes: 2 for an emoji shown as an emoji (emoji presentation, a text
 * emoji with U+FE0F, a keycap, a flag, any ZWJ sequence of pictographs) and for wide CJK; 0 for a lone
 * combining mark, format character or control; 1 otherwise.
 */
export function clusterWidth(cluster: string): number {
  const first = cluster.codePointAt(0);
  if (first === undefined) return 0;
  if (first < 0x20 || (first >= 0x7f && first < 0xa0)) return 0;
  if (first < 0x300 && cluster.length === 1) return 1;
  if (
    cluster.length > 1 &&
    (cluster.includes(VS16) || cluster.includes(KEYCAP)) &&
    (PICTOGRAPHIC.test(cluster) || cluster.includes(KEYCAP))
  )
    return 2;
  if (EMOJI_PRESENTATION.test(cluster) || REGIONAL_INDICATOR.test(cluster)) return 2;
  if (isWideCodePoint(first)) return 2;
  if (ZERO_WIDTH.test(String.fromCodePoint(first))) return 0;
  return 1;
}

/** The grapheme clusters of `text`, in order. */
export function graphemes(text: string): string[] {
  // Plain ASCII is one cluster per character (CRLF aside, which never reaches here), and common.
  if (/^[\x20-\x7e]*$/.test(text)) return text.split('');
  return Array.from(segmenter.segment(text), (s) => s.segment);
}

/** Columns `text` takes on a terminal; CSI sequences (our colours) take none. */
export function textWidth(text: string): number {
  const plain = text.includes('\x1b') ? text.replace(CSI, '') : text;
  if (/^[\x20-\x7e]*$/.test(plain)) return plain.length;
  let width = 0;
  for (const cluster of graphemes(plain)) width += clusterWidth(cluster);
  return width;
}

/**
 * `text` cut to at most `width` columns, never inside a grapheme cluster or a CSI sequence; `ellipsis`
 * (one column) marks a cut. Colour codes are kept, and a reset ends a cut line that held any.
 */
export function truncateToWidth(text: string, width: number, ellipsis = '…'): string {
  if (textWidth(text) <= width) return text;
  const room = Math.max(0, width - textWidth(ellipsis));
  let out = '';
  let used = 0;
  let styled = false;
  let at = 0;
  while (at < text.length) {
    CSI.lastIndex = at;
    const escape = text[at] === '\x1b' ? CSI.exec(text) : null;
    if (escape !== null && escape.index === at) {
      out += escape[0];
      styled = true;
      at += escape[0].length;
      continue;
    }
    const next = text.indexOf('\x1b', at);
    const piece = text.slice(at, next < 0 ? text.length : next);
    for (const cluster of graphemes(piece)) {
      const w = clusterWidth(cluster);
      if (used + w > room) return `${out}${ellipsis}${styled ? '\x1b[0m' : ''}`;
      out += cluster;
      used += w;
    }
    at += piece.length;
  }
  return out;
}

/** `text` padded with spaces to `width` columns (unchanged when it is wider). */
export function padToWidth(text: string, width: number): string {
  const gap = width - textWidth(text);
  return gap > 0 ? text + ' '.repeat(gap) : text;
}
