// LoCoMo (Maharana et al., "Evaluating Very Long-Term Conversational Memory of LLM Agents", ACL 2024;
// github.com/snap-research/locomo): long conversations between two speakers over many dated sessions,
// with questions whose answers and evidence turns are annotated. This file reads the published JSON and
// turns it into evaluation cases. The data is research data: it is read from where the user keeps it,
// never shipped with the package.
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { LocomoDataError } from './errors.js';
import type { EvalCase } from './types.js';

/** One turn: said by `speaker` in session `session`, at that session's date (`at`, epoch ms; `date` as written). */
export type LocomoTurn = { id: string; session: number; speaker: string; text: string; at: number; date: string };

/**
 * One annotated question. `evidence`: the ids of the turns that answer it, as far as they name turns of
 * the conversation; what the annotation names that is no turn (the published data has a few typos,
 * "D:11:26", "D") is kept in `unknownEvidence`, so nothing is dropped unseen.
 */
export type LocomoQuestion = {
  /** `<conversation>-q<position in its qa list, from 1>`: stable across runs, so two runs compare case by case. */
  id: string;
  question: string;
  /** The gold answer; absent only for some category 5 (adversarial) questions. */
  answer?: string;
  /** Category 5: the answer a model that does not check the conversation would give. */
  adversarialAnswer?: string;
  category: number;
  evidence: string[];
  unknownEvidence: string[];
};

export type LocomoConversation = {
  /** The sample's `sample_id`, else the file's name without `.json`. */
  name: string;
  file: string;
  speakers: [string, string];
  /** Every turn, session by session, in the order said. */
  turns: LocomoTurn[];
  questions: LocomoQuestion[];
};

export type LocomoData = { source: string; conversations: LocomoConversation[] };

/** LoCoMo's question categories, as the dataset's authors and later papers (mem0, Zep) name them. */
export const LOCOMO_CATEGORIES: Readonly<Record<number, string>> = {
  1: 'multi-hop',
  2: 'temporal',
  3: 'open-domain',
  4: 'single-hop',
  5: 'adversarial',
};

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const SESSION = /^session_(\d+)$/;

/**
 * Reads LoCoMo from `path`: a file or a folder of `.json` files (read in name order). A file holds one
 * conversation (`{ speaker_a, speaker_b, session_N, session_N_date_time, qa }`, or the published
 * `{ sample_id, conversation: {...}, qa }`) or an array of them (`locomo10.json` as published). Throws
 * `LocomoDataError` naming the file and the field for anything that is not that shape.
 */
export async function loadLocomo(path: string): Promise<LocomoData> {
  if (typeof path !== 'string' || path === '') throw new LocomoDataError(String(path), '', 'is not a path to LoCoMo data');
  let files: string[];
  try {
    files = (await stat(path)).isDirectory()
      ? (await readdir(path))
          .filter((f) => f.endsWith('.json'))
          .sort()
          .map((f) => join(path, f))
      : [path];
  } catch (error) {
    throw new LocomoDataError(path, '', `cannot be read: ${(error as Error).message}`, { cause: error });
  }
  if (files.length === 0) throw new LocomoDataError(path, '', 'holds no .json file');
  const conversations: LocomoConversation[] = [];
  for (const file of files) {
    let raw: unknown;
    try {
      raw = JSON.parse(await readFile(file, 'utf8'));
    } catch (error) {
      throw new LocomoDataError(file, '', `is not JSON: ${(error as Error).message}`, { cause: error });
    }
    const samples = Array.isArray(raw) ? raw : [raw];
    const stem = basename(file).replace(/\.json$/, '');
    samples.forEach((sample, i) => {
      const where = Array.isArray(raw) ? `[${i}]` : '';
      conversations.push(readSample(sample, file, where, Array.isArray(raw) ? `${stem}-${i + 1}` : stem));
    });
  }
  const seen = new Set<string>();
  for (const c of conversations) {
    if (seen.has(c.name))
      throw new LocomoDataError(c.file, 'sample_id', `"${c.name}" names two conversations; their cases would share ids`);
    seen.add(c.name);
  }
  return { source: path, conversations };
}

function readSample(sample: unknown, file: string, where: string, fallbackName: string): LocomoConversation {
  const bad = (field: string, message: string) => new LocomoDataError(file, [where, field].filter((p) => p !== '').join('.'), message);
  if (!isRecord(sample)) throw bad('', 'must be a conversation object');
  // The published file nests the conversation under `conversation`; the per-conversation files are flat.
  const conversation = sample.conversation === undefined ? sample : sample.conversation;
  const cw = sample.conversation === undefined ? '' : 'conversation.';
  if (!isRecord(conversation)) throw bad('conversation', 'must be an object');
  const speakers = (['speaker_a', 'speaker_b'] as const).map((key) => {
    const value = conversation[key];
    if (typeof value !== 'string' || value === '') throw bad(`${cw}${key}`, 'must be a speaker name');
    return value;
  }) as [string, string];
  const idOf = sample.sample_id;
  if (idOf !== undefined && (typeof idOf !== 'string' || idOf === '')) throw bad('sample_id', 'must be a string');
  const name = (idOf ?? fallbackName).replace(/[^A-Za-z0-9_.-]+/g, '_');

  const sessions = Object.keys(conversation)
    .map((k) => SESSION.exec(k))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
  if (sessions.length === 0) throw bad(`${cw}session_1`, 'is missing: a conversation needs at least one session');
  const turns: LocomoTurn[] = [];
  for (const n of sessions) {
    const list = conversation[`session_${n}`];
    if (!Array.isArray(list)) throw bad(`${cw}session_${n}`, 'must be a list of turns');
    const dateField = `${cw}session_${n}_date_time`;
    const date = conversation[`session_${n}_date_time`];
    if (typeof date !== 'string') throw bad(dateField, 'must be the date of the session ("1:56 pm on 8 May, 2023")');
    const at = parseSessionDate(date);
    if (at === undefined) throw bad(dateField, `is not a date like "1:56 pm on 8 May, 2023": ${JSON.stringify(date)}`);
    list.forEach((turn: unknown, i) => {
      const field = `${cw}session_${n}[${i}]`;
      if (!isRecord(turn)) throw bad(field, 'must be a turn { speaker, dia_id, text }');
      for (const key of ['speaker', 'dia_id', 'text'] as const) {
        if (typeof turn[key] !== 'string') throw bad(`${field}.${key}`, 'must be a string');
      }
      if (turn.blip_caption !== undefined && typeof turn.blip_caption !== 'string') throw bad(`${field}.blip_caption`, 'must be a string');
      // A shared photo is part of what was said: its caption is all the text the turn has about it.
      const photo = typeof turn.blip_caption === 'string' && turn.blip_caption !== '' ? ` [shares a photo: ${turn.blip_caption}]` : '';
      turns.push({
        id: turn.dia_id as string,
        session: n,
        speaker: turn.speaker as string,
        text: `${turn.text as string}${photo}`,
        at,
        date,
      });
    });
  }

  const known = new Set(turns.map((t) => t.id));
  const qa = sample.qa;
  if (!Array.isArray(qa)) throw bad('qa', 'must be a list of questions');
  const width = Math.max(3, String(qa.length).length);
  const questions = qa.map((q: unknown, i): LocomoQuestion => {
    const field = `qa[${i}]`;
    if (!isRecord(q)) throw bad(field, 'must be a question { question, answer, evidence, category }');
    if (typeof q.question !== 'string' || q.question.trim() === '') throw bad(`${field}.question`, 'must be a non-empty string');
    const category = q.category;
    if (typeof category !== 'number' || !Number.isInteger(category) || category < 1 || category > 5)
      throw bad(`${field}.category`, `must be a number 1-5, got ${JSON.stringify(category)}`);
    const answer = q.answer;
    if (answer !== undefined && typeof answer !== 'string' && typeof answer !== 'number')
      throw bad(`${field}.answer`, 'must be a string or a number');
    // Only adversarial questions (5) may come without one: they are meant to have no answer in the conversation.
    if (answer === undefined && category !== 5) throw bad(`${field}.answer`, `is missing (category ${category} questions have one)`);
    if (q.adversarial_answer !== undefined && typeof q.adversarial_answer !== 'string')
      throw bad(`${field}.adversarial_answer`, 'must be a string');
    const evidence = q.evidence ?? [];
    if (!Array.isArray(evidence) || evidence.some((e) => typeof e !== 'string'))
      throw bad(`${field}.evidence`, 'must be a list of turn ids ("D1:3")');
    // A few annotations pack several ids in one string ("D8:6; D9:17").
    const ids = [...new Set((evidence as string[]).flatMap((e) => e.split(/[;,\s]+/)).filter((e) => e !== ''))];
    return {
      id: `${name}-q${String(i + 1).padStart(width, '0')}`,
      question: q.question,
      ...(answer === undefined ? {} : { answer: String(answer) }),
      ...(q.adversarial_answer === undefined ? {} : { adversarialAnswer: q.adversarial_answer }),
      category,
      evidence: ids.filter((e) => known.has(e)),
      unknownEvidence: ids.filter((e) => !known.has(e)),
    };
  });
  return { name, file, speakers, turns, questions };
}

/** "1:56 pm on 8 May, 2023" as epoch ms (UTC: the data gives no zone); undefined when it is not such a date. */
export function parseSessionDate(value: string): number | undefined {
  const m = /^(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})$/i.exec(value.trim());
  const month = m === null ? -1 : MONTHS.indexOf(m[5].toLowerCase());
  if (m === null || month < 0) return undefined;
  const hour = (Number(m[1]) % 12) + (m[3].toLowerCase() === 'pm' ? 12 : 0);
  return Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2]));
}

export type LocomoCaseOptions = {
  /** The question categories to keep. Default 1-4: category 5 (adversarial) has no answer in the conversation. */
  categories?: readonly number[];
  /** Only these conversations (by name). Default every one. */
  conversations?: readonly string[];
  /** Leave out questions whose evidence names no turn (they cannot score recall). Default false. */
  requireEvidence?: boolean;
};

/** What a LoCoMo case carries besides its question and gold answer. */
export type LocomoCaseMetadata = {
  conversation: string;
  category: number;
  categoryName: string;
  evidence: string[];
  unknownEvidence: string[];
  adversarialAnswer?: string;
};

/**
 * The questions of `data` as evaluation cases: `input` the question, `expected` the gold answer (for an
 * adversarial question, that the conversation does not say), `metadata` its conversation, category and
 * evidence turns. Case ids are the questions' ids (`26-q007`).
 */
export function locomoCases(data: LocomoData, options: LocomoCaseOptions = {}): EvalCase<string>[] {
  if (!Array.isArray(data?.conversations)) throw new LocomoDataError('(data)', 'conversations', 'is missing: give what loadLocomo returns');
  const categories = new Set(options.categories ?? [1, 2, 3, 4]);
  for (const c of categories) {
    if (LOCOMO_CATEGORIES[c] === undefined) throw new LocomoDataError(data.source, 'categories', `names no LoCoMo category: ${c} (1-5)`);
  }
  const names = options.conversations === undefined ? undefined : new Set(options.conversations);
  for (const name of names ?? []) {
    if (!data.conversations.some((c) => c.name === name))
      throw new LocomoDataError(data.source, 'conversations', `names no conversation of the data: "${name}"`);
  }
  return data.conversations
    .filter((c) => names === undefined || names.has(c.name))
    .flatMap((c) =>
      c.questions
        .filter((q) => categories.has(q.category) && (options.requireEvidence !== true || q.evidence.length > 0))
        .map((q): EvalCase<string> => {
          const metadata: LocomoCaseMetadata = {
            conversation: c.name,
            category: q.category,
            categoryName: LOCOMO_CATEGORIES[q.category],
            evidence: q.evidence,
            unknownEvidence: q.unknownEvidence,
            ...(q.adversarialAnswer === undefined ? {} : { adversarialAnswer: q.adversarialAnswer }),
          };
          const expected = q.category === 5 ? 'The conversation does not say.' : q.answer!;
          return { id: q.id, input: q.question, expected, metadata };
        }),
    );
}

/** A LoCoMo case's group in summaries and reports: its category, number and name ("2 temporal"). */
export function locomoCategory(c: { metadata: Record<string, unknown> }): string | undefined {
  const n = c.metadata.category;
  return typeof n === 'number' ? `${n} ${LOCOMO_CATEGORIES[n] ?? ''}`.trim() : undefined;
}

/** Each turn as a memory store saves it by default: who said it, and what. */
export function locomoTurnText(turn: LocomoTurn): string {
  return `${turn.speaker}: ${turn.text}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
