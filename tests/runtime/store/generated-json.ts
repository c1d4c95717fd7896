// Generated values for the tests that hold the store's serializers to what JSON (and
// fast-json-stable-stringify) write: deterministic, so a failure names a seed that reproduces it.

export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

export const STRINGS = [
  '',
  'a',
  'B',
  'é',
  '10',
  '9',
  '__proto__',
  'constructor',
  ' ',
  'line\nbreak',
  'quote"',
  'back\\slash',
  '\u2028',
  '\ud83d\ude00',
  '\ud800',
  'x'.repeat(200) + '"',
];
// Keys for plain values leave out "constructor": vitest's toStrictEqual, which those tests compare
// copies with, reads an own "constructor" key as the object's class.
const PLAIN_KEYS = STRINGS.filter((key) => key !== 'constructor');
const PLAIN_NUMBERS = [0, -0, 1, -1, 1.5, 1e21, 1e-7, 2 ** 53, Number.MAX_VALUE];
const NUMBERS = [...PLAIN_NUMBERS, NaN, Infinity, -Infinity];

/**
 * A value of nested arrays and objects (own keys as JSON.parse makes them, "__proto__" among them, some
 * without a prototype). `plain` keeps to what JSON represents as is, undefined included; without it,
 * also what JSON has its own rules for: dates (toJSON), functions, NaN and the infinities.
 */
export function generatedValue(next: () => number, depth: number, { plain }: { plain: boolean }): unknown {
  const numbers = plain ? PLAIN_NUMBERS : NUMBERS;
  const leaves = plain ? 5 : 6;
  const pick = Math.floor(next() * (depth > 3 ? leaves : leaves + 2));
  switch (pick) {
    case 0:
      return null;
    case 1:
      return next() < 0.5;
    case 2:
      return numbers[Math.floor(next() * numbers.length)];
    case 3:
      return STRINGS[Math.floor(next() * STRINGS.length)];
    case 4:
      return undefined;
  }
  if (!plain && pick === 5) return new Date(Math.floor(next() * 2 ** 40));
  if (pick === leaves) return Array.from({ length: Math.floor(next() * 4) }, () => generatedValue(next, depth + 1, { plain }));
  const object: Record<string, unknown> = next() < 0.2 ? Object.create(null) : {};
  for (let i = Math.floor(next() * 5); i > 0; i--) {
    const keys = plain ? PLAIN_KEYS : STRINGS;
    const key = keys[Math.floor(next() * keys.length)];
    Object.defineProperty(object, key, {
      value: generatedValue(next, depth + 1, { plain }),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  if (!plain && next() < 0.1) object.fn = () => 1;
  return object;
}
