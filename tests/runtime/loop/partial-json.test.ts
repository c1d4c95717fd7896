// parsePartialJson: the value of a JSON answer as far as it has streamed. Every prefix of a valid text
// parses without throwing to a value the final one extends, nothing is shown that could still change,
// the whole text gives what JSON.parse gives, and text that cannot be JSON gives nothing.
import { describe, expect, it } from 'vitest';
import { MAX_PARTIAL_JSON_DEPTH, parsePartialJson } from '../../../src/runtime/loop/index.js';

/** Whether `partial` is what a prefix may show of `final`: equal scalars, a string's start, members and elements it extends. */
function extendsTo(final: unknown, partial: unknown): boolean {
  if (typeof final === 'string') return typeof partial === 'string' && final.startsWith(partial);
  if (Array.isArray(final)) {
    if (!Array.isArray(partial) || partial.length > final.length) return false;
    return partial.every((element, i) => (i < partial.length - 1 ? deepEqual(element, final[i]) : extendsTo(final[i], element)));
  }
  if (typeof final === 'object' && final !== null) {
    if (typeof partial !== 'object' || partial === null || Array.isArray(partial)) return false;
    return Object.entries(partial).every(
      ([key, value]) => Object.hasOwn(final, key) && extendsTo((final as Record<string, unknown>)[key], value),
    );
  }
  return Object.is(final, partial);
}

function deepEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Checks every prefix of `text`, a valid JSON text: no throw, each value extends the last and the whole extends each. */
function everyPrefix(text: string): void {
  const final = JSON.parse(text);
  let last: unknown = undefined;
  for (let end = 0; end <= text.length; end++) {
    const prefix = text.slice(0, end);
    const result = parsePartialJson(prefix);
    if (result === undefined) {
      // Once a value showed, a longer prefix of valid JSON shows one too.
      expect(last, `prefix ${JSON.stringify(prefix)}`).toBeUndefined();
      continue;
    }
    expect(extendsTo(final, result.value), `prefix ${JSON.stringify(prefix)} gave ${JSON.stringify(result.value)}`).toBe(true);
    if (last !== undefined) expect(extendsTo(result.value, last), `prefix ${JSON.stringify(prefix)}`).toBe(true);
    // Complete only once nothing of the value is left to come.
    if (result.complete) expect(text.slice(end).trim()).toBe('');
    last = result.value;
  }
  // A number at the very end may go on, so a reply that is one number shows once a newline ends it.
  expect(parsePartialJson(`${text}\n`)).toEqual({ value: final, complete: true });
  if (typeof final !== 'number') expect(parsePartialJson(text)).toEqual({ value: final, complete: true });
}

const CORPUS = [
  '{"city":"Pune","celsius":31.5,"rain":false,"wind":null,"tags":["hot","dry"],"hours":[{"h":1,"t":-2e-3},{"h":2,"t":1E+2}]}',
  '  [ 1 , [ ] , { } , "a\\"b\\\\c\\/d\\n\\u00e9\\ud83d\\ude00" , true ]  ',
  '"just a string"',
  '-0.125',
  '{"nested":{"deeper":{"deepest":[[["x"]]]}},"empty":"","zero":0}',
];

describe('parsePartialJson', () => {
  it.each(CORPUS)('parses every prefix of %s to a value the whole extends, and the whole as JSON.parse does', (text) => {
    everyPrefix(text);
  });

  it('holds for every prefix of random JSON values, written compactly and spaced out', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const pick = <T>(items: T[]): T => items[Math.floor(random() * items.length)];
    const valueOf = (depth: number): unknown => {
      const kind = depth > 3 ? pick(['s', 'n', 'b']) : pick(['s', 'n', 'b', 'z', 'a', 'o', 'o']);
      if (kind === 's') return pick(['', 'plain', 'with "quotes"', 'tab\there', 'é ✓ 😀', 'back\\slash']);
      if (kind === 'n') return pick([0, 7, -3, 12.75, 1e21, -0.0005]);
      if (kind === 'b') return random() < 0.5;
      if (kind === 'z') return null;
      const size = Math.floor(random() * 4);
      if (kind === 'a') return Array.from({ length: size }, () => valueOf(depth + 1));
      return Object.fromEntries(Array.from({ length: size }, (_, i) => [`k${i}${pick(['', '_x', 'é'])}`, valueOf(depth + 1)]));
    };
    for (let i = 0; i < 60; i++) {
      const value = valueOf(0);
      everyPrefix(JSON.stringify(value));
      everyPrefix(JSON.stringify(value, null, 2));
    }
  });

  it('shows a string as it arrives, a member once its key is whole and its value begun, an element as it begins', () => {
    expect(parsePartialJson('{"city":"Pu')).toEqual({ value: { city: 'Pu' }, complete: false });
    expect(parsePartialJson('{"city":"Pune","cel')).toEqual({ value: { city: 'Pune' }, complete: false });
    expect(parsePartialJson('{"city":"Pune","celsius":')).toEqual({ value: { city: 'Pune' }, complete: false });
    expect(parsePartialJson('[{"a":"x"},{"b')).toEqual({ value: [{ a: 'x' }, {}], complete: false });
    expect(parsePartialJson('["a","b')).toEqual({ value: ['a', 'b'], complete: false });
  });

  it('shows a number only once something ended it, a literal only once whole, an escape only once whole', () => {
    expect(parsePartialJson('{"n":12')?.value).toEqual({});
    expect(parsePartialJson('{"n":12 ')?.value).toEqual({ n: 12 });
    expect(parsePartialJson('[1,2,3')?.value).toEqual([1, 2]);
    expect(parsePartialJson('[1.5e')?.value).toEqual([]);
    expect(parsePartialJson('{"ok":tru')?.value).toEqual({});
    expect(parsePartialJson('{"ok":true')?.value).toEqual({ ok: true });
    expect(parsePartialJson('"caf\\u00')?.value).toBe('caf');
    expect(parsePartialJson('"line\\')?.value).toBe('line');
    expect(parsePartialJson('12')).toBeUndefined();
    expect(parsePartialJson('12\n')).toEqual({ value: 12, complete: true });
  });

  it('tolerates a ```json fence around the value, as the final check does, and shows nothing while the fence arrives', () => {
    for (const start of ['`', '``', '```', '```js', '```json', '```json\n']) expect(parsePartialJson(start)).toBeUndefined();
    expect(parsePartialJson('```json\n{"a":[1')).toEqual({ value: { a: [] }, complete: false });
    expect(parsePartialJson('```json\n{"a":1}\n``')).toEqual({ value: { a: 1 }, complete: true });
    expect(parsePartialJson('```\n{"a":1}\n```\n')).toEqual({ value: { a: 1 }, complete: true });
  });

  it.each([
    ['prose', 'Sure! Here is the forecast: {"city":"Pune"}'],
    ['a value with more after it', '{"a":1} and that is all'],
    ['two values', '{"a":1}{"b":2}'],
    ['a trailing comma', '{"a":1,}'],
    ['an unquoted key', '{a:1}'],
    ['a leading zero', '[01]'],
    ['a number with no digit before its point', '[-.5]'],
    ['a bad escape', '"\\x"'],
    ['a raw control character in a string', '"a\tb"'],
    ['a closing fence with no opening one', '{"a":1}\n```'],
    ['an empty text', '   '],
  ])('gives nothing for %s', (_what, text) => {
    expect(parsePartialJson(text)).toBeUndefined();
  });

  it('makes "__proto__" an own member, as JSON.parse does, without touching any prototype', () => {
    const result = parsePartialJson('{"__proto__":{"polluted":true},"x":{"__proto__":[1');

    const value = result?.value as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.hasOwn(value, '__proto__')).toBe(true);
    expect(Object.getOwnPropertyDescriptor(value, '__proto__')?.value).toEqual({ polluted: true });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.hasOwn(value.x as object, '__proto__')).toBe(true);
  });

  it(`gives nothing for nesting over ${MAX_PARTIAL_JSON_DEPTH} levels, rather than overflowing the stack, and parses up to it`, () => {
    expect(parsePartialJson('['.repeat(100_000))).toBeUndefined();
    expect(parsePartialJson('['.repeat(MAX_PARTIAL_JSON_DEPTH))?.complete).toBe(false);
  });
});
