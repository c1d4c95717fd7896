// A light English stemmer: the plural, past-tense and -ing steps of Porter's algorithm plus its final
// -e/-ll clean-up. It conflates the forms a user and a stored fact most often disagree on ("units" and
// "unit", "created" and "create", "policies" and "policy") without the later Porter steps, whose
// aggressive suffix stripping merges unrelated words in short texts.

const VOWELS = new Set(['a', 'e', 'i', 'o', 'u']);

function isConsonant(word: string, i: number): boolean {
  const c = word[i];
  if (VOWELS.has(c)) return false;
  // `y` after a consonant sounds like a vowel ("policy"), at the start or after a vowel like a consonant ("yes", "play").
  if (c === 'y') return i === 0 || !isConsonant(word, i - 1);
  return true;
}

/** Porter's m: the number of vowel-consonant sequences in `stem`. */
function measure(stem: string): number {
  let m = 0;
  let i = 0;
  const n = stem.length;
  while (i < n && isConsonant(stem, i)) i++;
  while (i < n) {
    while (i < n && !isConsonant(stem, i)) i++;
    if (i >= n) break;
    while (i < n && isConsonant(stem, i)) i++;
    m++;
  }
  return m;
}

function hasVowel(stem: string): boolean {
  for (let i = 0; i < stem.length; i++) if (!isConsonant(stem, i)) return true;
  return false;
}

function endsWithDoubleConsonant(word: string): boolean {
  const n = word.length;
  return n >= 2 && word[n - 1] === word[n - 2] && isConsonant(word, n - 1);
}

/** Consonant-vowel-consonant ending whose last letter is not w, x or y ("hop", not "snow"). */
function endsCvc(word: string): boolean {
  const n = word.length;
  if (n < 3) return false;
  const last = word[n - 1];
  return isConsonant(word, n - 3) && !isConsonant(word, n - 2) && isConsonant(word, n - 1) && last !== 'w' && last !== 'x' && last !== 'y';
}

function stripPlural(word: string): string {
  if (word.endsWith('sses')) return word.slice(0, -2);
  if (word.endsWith('ies')) return word.slice(0, -2);
  if (word.endsWith('ss')) return word;
  if (word.endsWith('s')) return word.slice(0, -1);
  return word;
}

/** After -ed/-ing is removed, restores the spelling the other forms share ("hopp" -> "hop", "not" -> "note"). */
function repairStem(stem: string): string {
  if (stem.endsWith('at') || stem.endsWith('bl') || stem.endsWith('iz')) return stem + 'e';
  if (endsWithDoubleConsonant(stem) && !/[lsz]$/.test(stem)) return stem.slice(0, -1);
  if (measure(stem) === 1 && endsCvc(stem)) return stem + 'e';
  return stem;
}

function stripPastAndProgressive(word: string): string {
  if (word.endsWith('eed')) return measure(word.slice(0, -3)) > 0 ? word.slice(0, -1) : word;
  for (const suffix of ['ed', 'ing']) {
    if (word.endsWith(suffix)) {
      const stem = word.slice(0, -suffix.length);
      return hasVowel(stem) ? repairStem(stem) : word;
    }
  }
  return word;
}

function finalY(word: string): string {
  return word.endsWith('y') && hasVowel(word.slice(0, -1)) ? word.slice(0, -1) + 'i' : word;
}

function finalE(word: string): string {
  if (!word.endsWith('e')) return word;
  const stem = word.slice(0, -1);
  const m = measure(stem);
  return m > 1 || (m === 1 && !endsCvc(stem)) ? stem : word;
}

function finalDoubleL(word: string): string {
  return word.endsWith('ll') && measure(word) > 1 ? word.slice(0, -1) : word;
}

const ASCII_WORD = /^[a-z]+$/;

/** Stems a lower-case word. Words under three letters and anything outside `a-z` pass through unchanged. */
export function stem(word: string): string {
  if (word.length <= 2 || !ASCII_WORD.test(word)) return word;
  return finalDoubleL(finalE(finalY(stripPastAndProgressive(stripPlural(word)))));
}
