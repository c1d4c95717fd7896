/** What `parsePartialJson` makes of a JSON text that may still be streaming. */
export type PartialJson = {
  /** The value so far: what has arrived of it, nothing guessed. */
  value: unknown;
  /** True once the text holds the whole value (and nothing after it but whitespace and a closing fence). */
  complete: boolean;
};

/** Nesting deeper than this is not previewed: the parser recurses, and a hostile reply must not overflow the stack. */
export const MAX_PARTIAL_JSON_DEPTH = 512;

/**
 * The value of `text`, a JSON answer as far as it has streamed, for showing it as it arrives (the
 * `partial_output` of `submit(prompt, { output })`). Undefined while the text holds no value yet, and
 * when it cannot be the start of one JSON value (prose, a second value, nesting over
 * `MAX_PARTIAL_JSON_DEPTH`); it never throws. A leading ```` ```json ```` fence and a closing one are
 * tolerated, as the final check tolerates them.
 *
 * Only what has arrived is shown, and nothing that could still change into something else: a string
 * shows the characters so far (an escape only once whole); an object, its members whose key is whole
 * and whose value has begun; an array, its elements so far. A number shows only once a character after
 * it ended it (`12` may become `123`), `true`, `false` and `null` only once whole. So each value
 * returned for a longer prefix extends the one before, and the complete value equals `JSON.parse`'s
 * (members named `__proto__` included, as own properties). It parses the whole text on every call:
 * linear in its length, so a caller previewing every delta of a long answer may want to throttle.
 */
export function parsePartialJson(text: string): PartialJson | undefined {
  const fence = /^\s*```(?:json)?[ \t]*(?:\r?\n|$)/i.exec(text);
  if (fence === null && /^\s*`{1,3}(?:j(?:s(?:o(?:n)?)?)?)?[ \t]*$/i.test(text)) return undefined; // a fence still arriving
  const parser = new Parser(text, fence === null ? 0 : fence[0].length);
  try {
    parser.space();
    if (parser.atEnd()) return undefined;
    const { value, closed } = parser.value(0);
    if (!closed) return value === NOTHING ? undefined : { value, complete: false };
    parser.space();
    if (fence !== null) parser.closingFence();
    return parser.atEnd() ? { value, complete: true } : undefined;
  } catch (error) {
    if (error === INVALID) return undefined;
    throw error;
  }
}

/** A value that has begun but shows nothing yet (a number or literal still arriving). */
const NOTHING = Symbol('nothing yet');
/** Thrown inside the parser for text that cannot be JSON; never escapes `parsePartialJson`. */
const INVALID = Symbol('not JSON');

type Parsed = { value: unknown; closed: boolean };

const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
/** What a number may be while it is still arriving, to the end of the text: `-`, `12`, `1.`, `1.5e`, `1e+`. */
const NUMBER_PREFIX = /-?(?:(?:0|[1-9]\d*)(?:\.(?:\d+(?:[eE][+-]?\d*)?)?|[eE][+-]?\d*)?)?$/y;
const STRING_RUN = /[^"\\\u0000-\u001f]*/y;
const LITERALS: ReadonlyArray<readonly [string, unknown]> = [
  ['true', true],
  ['false', false],
  ['null', null],
];

class Parser {
  constructor(
    private readonly text: string,
    private pos: number,
  ) {}

  atEnd(): boolean {
    return this.pos >= this.text.length;
  }

  space(): void {
    while (this.pos < this.text.length && ' \t\n\r'.includes(this.text[this.pos])) this.pos++;
  }

  /** After a fenced value: the closing fence (or what has arrived of it), then whitespace. */
  closingFence(): void {
    let ticks = 0;
    while (ticks < 3 && this.text[this.pos] === '`') {
      this.pos++;
      ticks++;
    }
    this.space();
  }

  value(depth: number): Parsed {
    if (depth > MAX_PARTIAL_JSON_DEPTH) throw INVALID;
    this.space();
    if (this.atEnd()) return { value: NOTHING, closed: false };
    const c = this.text[this.pos];
    if (c === '{') return this.object(depth);
    if (c === '[') return this.array(depth);
    if (c === '"') return this.string();
    if (c === '-' || (c >= '0' && c <= '9')) return this.number();
    return this.literal();
  }

  private object(depth: number): Parsed {
    this.pos++;
    const object: Record<string, unknown> = {};
    let expectMember = false;
    for (;;) {
      this.space();
      if (this.atEnd()) return { value: object, closed: false };
      if (this.text[this.pos] === '}' && !expectMember) {
        this.pos++;
        return { value: object, closed: true };
      }
      if (this.text[this.pos] !== '"') throw INVALID;
      const key = this.string();
      if (!key.closed) return { value: object, closed: false };
      this.space();
      if (this.atEnd()) return { value: object, closed: false };
      if (this.text[this.pos] !== ':') throw INVALID;
      this.pos++;
      const member = this.value(depth + 1);
      // As JSON.parse makes it: an own property, also for "__proto__".
      if (member.value !== NOTHING)
        Object.defineProperty(object, key.value as string, { value: member.value, enumerable: true, writable: true, configurable: true });
      if (!member.closed) return { value: object, closed: false };
      this.space();
      if (this.atEnd()) return { value: object, closed: false };
      const next = this.text[this.pos++];
      if (next === '}') return { value: object, closed: true };
      if (next !== ',') throw INVALID;
      expectMember = true;
    }
  }

  private array(depth: number): Parsed {
    this.pos++;
    const array: unknown[] = [];
    let expectElement = false;
    for (;;) {
      this.space();
      if (this.atEnd()) return { value: array, closed: false };
      if (this.text[this.pos] === ']' && !expectElement) {
        this.pos++;
        return { value: array, closed: true };
      }
      const element = this.value(depth + 1);
      if (element.value !== NOTHING) array.push(element.value);
      if (!element.closed) return { value: array, closed: false };
      this.space();
      if (this.atEnd()) return { value: array, closed: false };
      const next = this.text[this.pos++];
      if (next === ']') return { value: array, closed: true };
      if (next !== ',') throw INVALID;
      expectElement = true;
    }
  }

  private string(): Parsed {
    this.pos++;
    let out = '';
    for (;;) {
      STRING_RUN.lastIndex = this.pos;
      STRING_RUN.exec(this.text);
      out += this.text.slice(this.pos, STRING_RUN.lastIndex);
      this.pos = STRING_RUN.lastIndex;
      if (this.atEnd()) return { value: out, closed: false };
      const c = this.text[this.pos];
      if (c === '"') {
        this.pos++;
        return { value: out, closed: true };
      }
      // A raw control character cannot be in a JSON string.
      if (c !== '\\') throw INVALID;
      const kind = this.text[this.pos + 1];
      if (kind === undefined) return { value: out, closed: false };
      if (kind === 'u') {
        const hex = this.text.slice(this.pos + 2, this.pos + 6);
        if (!/^[0-9a-fA-F]*$/.test(hex)) throw INVALID;
        if (hex.length < 4) return { value: out, closed: false };
        out += String.fromCharCode(Number.parseInt(hex, 16));
        this.pos += 6;
      } else {
        const escaped = ESCAPES[kind];
        if (escaped === undefined) throw INVALID;
        out += escaped;
        this.pos += 2;
      }
    }
  }

  private number(): Parsed {
    // A number that reaches the end of the text may go on: shown only once something ended it.
    NUMBER_PREFIX.lastIndex = this.pos;
    if (NUMBER_PREFIX.test(this.text)) {
      this.pos = this.text.length;
      return { value: NOTHING, closed: false };
    }
    NUMBER.lastIndex = this.pos;
    const match = NUMBER.exec(this.text);
    if (match === null) throw INVALID;
    this.pos = NUMBER.lastIndex;
    return { value: Number(match[0]), closed: true };
  }

  private literal(): Parsed {
    const rest = this.text.slice(this.pos, this.pos + 5);
    for (const [word, value] of LITERALS) {
      if (rest.startsWith(word)) {
        this.pos += word.length;
        return { value, closed: true };
      }
      if (this.pos + rest.length === this.text.length && word.startsWith(rest)) {
        this.pos = this.text.length;
        return { value: NOTHING, closed: false };
      }
    }
    throw INVALID;
  }
}
