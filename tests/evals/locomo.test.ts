// Reading LoCoMo: the published shape (an array of samples), the per-conversation files of a folder,
// and a LocomoDataError naming the file and the field for each way a file can be malformed.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocomoDataError, loadLocomo, locomoCases } from '../../src/evals/index.js';
import { TINY } from './locomo-support.js';

let dir: string;
let published: Array<Record<string, any>>;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'indusagi-locomo-'));
  published = JSON.parse(await readFile(TINY, 'utf8'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Writes `value` as a file of its own and returns its path. */
async function file(name: string, value: unknown): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, typeof value === 'string' ? value : JSON.stringify(value));
  return path;
}

/** The fixture's first sample with `edit` applied to a deep copy of it. */
function sample(edit: (s: Record<string, any>) => void): Record<string, any> {
  const copy = structuredClone(published[0]);
  edit(copy);
  return copy;
}

async function failure(path: string): Promise<LocomoDataError> {
  const error = await loadLocomo(path).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(LocomoDataError.isInstance(error), String(error)).toBe(true);
  return error as LocomoDataError;
}

describe('loadLocomo', () => {
  it('reads the published shape: turns in session order with their dates, questions with their evidence', async () => {
    const data = await loadLocomo(TINY);
    expect(data.conversations.map((c) => c.name)).toEqual(['tiny', 'tiny2']);
    const [tiny] = data.conversations;
    expect(tiny.speakers).toEqual(['Ana', 'Ben']);
    expect(tiny.turns.map((t) => t.id)).toEqual(['D1:1', 'D1:2', 'D1:3', 'D2:1', 'D2:2', 'D2:3']);
    expect(tiny.turns[3]).toEqual({
      id: 'D2:1',
      session: 2,
      speaker: 'Ben',
      text: 'I played the violin at a concert last Saturday.',
      at: Date.UTC(2023, 3, 17, 14, 30),
      date: '2:30 pm on 17 April, 2023',
    });
    // A photo's caption is what the turn says about it.
    expect(tiny.turns[4].text).toBe('Biscuit chewed my shoes. [shares a photo: a small brown dog]');
    expect(tiny.turns[0].at).toBe(Date.UTC(2023, 2, 3, 10, 0));
    expect(tiny.questions.map((q) => q.id)).toEqual(['tiny-q001', 'tiny-q002', 'tiny-q003', 'tiny-q004', 'tiny-q005', 'tiny-q006']);
    // "D1:3; D9:9" is two ids in one string; D9:9 names no turn and is kept apart, not dropped unseen.
    expect(tiny.questions[5]).toMatchObject({ evidence: ['D1:3'], unknownEvidence: ['D9:9'], answer: 'Lisbon', category: 4 });
    expect(tiny.questions[4]).toMatchObject({ category: 5, adversarialAnswer: 'Biscuit' });
    expect(tiny.questions[4].answer).toBeUndefined();
  });

  it('reads a folder of per-conversation files, named by their files, in name order', async () => {
    const folder = join(dir, 'folder');
    await mkdir(folder);
    // The development files' shape: the conversation's fields at the top, no sample_id.
    for (const [name, s] of [
      ['b.json', published[0]],
      ['a.json', published[1]],
    ] as const) {
      await writeFile(join(folder, name), JSON.stringify({ ...s.conversation, qa: s.qa }));
    }
    await writeFile(join(folder, 'notes.txt'), 'not data');
    const data = await loadLocomo(folder);
    expect(data.conversations.map((c) => [c.name, c.turns.length, c.questions.length])).toEqual([
      ['a', 2, 1],
      ['b', 6, 6],
    ]);
    expect(data.conversations[1].questions[0].id).toBe('b-q001');
  });

  it('names the file and the field of malformed input', async () => {
    const cases: Array<[string, unknown, RegExp]> = [
      ['not-json.json', '{"qa": [', /not-json\.json: is not JSON/],
      ['no-qa.json', sample((s) => delete s.qa), /no-qa\.json: \[0\]\.qa must be a list of questions/],
      ['category.json', sample((s) => (s.qa[2].category = 7)), /category\.json: \[0\]\.qa\[2\]\.category must be a number 1-5, got 7/],
      ['question.json', sample((s) => (s.qa[1].question = 42)), /\[0\]\.qa\[1\]\.question must be a non-empty string/],
      ['answer.json', sample((s) => delete s.qa[0].answer), /\[0\]\.qa\[0\]\.answer is missing \(category 4 questions have one\)/],
      ['evidence.json', sample((s) => (s.qa[0].evidence = 'D1:1')), /\[0\]\.qa\[0\]\.evidence must be a list of turn ids/],
      [
        'date.json',
        sample((s) => (s.conversation.session_2_date_time = 'yesterday')),
        /date\.json: \[0\]\.conversation\.session_2_date_time is not a date like "1:56 pm on 8 May, 2023": "yesterday"/,
      ],
      [
        'no-date.json',
        sample((s) => delete s.conversation.session_1_date_time),
        /\[0\]\.conversation\.session_1_date_time must be the date/,
      ],
      [
        'turn.json',
        sample((s) => delete s.conversation.session_2[1].dia_id),
        /\[0\]\.conversation\.session_2\[1\]\.dia_id must be a string/,
      ],
      ['speaker.json', sample((s) => delete s.conversation.speaker_b), /\[0\]\.conversation\.speaker_b must be a speaker name/],
      ['sessions.json', sample((s) => (s.conversation.session_1 = {})), /\[0\]\.conversation\.session_1 must be a list of turns/],
      ['scalar.json', [42], /scalar\.json: \[0\] must be a conversation object/],
      ['twice.json', [published[0], published[0]], /twice\.json: sample_id "tiny" names two conversations/],
    ];
    for (const [name, value, message] of cases) {
      const path = await file(name, Array.isArray(value) || typeof value === 'string' ? value : [value]);
      const error = await failure(path);
      expect(error.message, name).toMatch(message);
      expect(error.file).toBe(path);
      expect(error.kind).toBe('locomo_data');
    }
  });

  it('refuses a path that is not there, and a folder with no data', async () => {
    expect((await failure(join(dir, 'missing.json'))).message).toMatch(/missing\.json: cannot be read/);
    await mkdir(join(dir, 'empty'));
    expect((await failure(join(dir, 'empty'))).message).toMatch(/empty: holds no \.json file/);
  });
});

describe('locomoCases', () => {
  it('makes a case per question of categories 1-4: the question, the gold answer, where it is from', async () => {
    const data = await loadLocomo(TINY);
    const cases = locomoCases(data);
    expect(cases.map((c) => c.id)).toEqual(['tiny-q001', 'tiny-q002', 'tiny-q003', 'tiny-q004', 'tiny-q006', 'tiny2-q001']);
    expect(cases[1]).toEqual({
      id: 'tiny-q002',
      input: 'Ben started the violin; where did he play the violin?',
      expected: 'violin, at a concert',
      metadata: { conversation: 'tiny', category: 1, categoryName: 'multi-hop', evidence: ['D1:2', 'D2:1'], unknownEvidence: [] },
    });
    expect(locomoCases(data, { requireEvidence: true }).map((c) => c.id)).not.toContain('tiny-q004');
    expect(locomoCases(data, { conversations: ['tiny2'] }).map((c) => c.id)).toEqual(['tiny2-q001']);
    // Adversarial questions only when asked for: their right answer is that the conversation does not say.
    const [adversarial] = locomoCases(data, { categories: [5] });
    expect(adversarial).toMatchObject({
      id: 'tiny-q005',
      expected: 'The conversation does not say.',
      metadata: { adversarialAnswer: 'Biscuit' },
    });
  });

  it('refuses a category or a conversation the data does not have', async () => {
    const data = await loadLocomo(TINY);
    expect(() => locomoCases(data, { categories: [6] })).toThrow(/names no LoCoMo category: 6/);
    expect(() => locomoCases(data, { conversations: ['nope'] })).toThrow(/names no conversation of the data: "nope"/);
  });
});
