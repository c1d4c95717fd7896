// Reads LoCoMo conversations (Maharana et al., "Evaluating Very Long-Term Conversational Memory of LLM
// Agents", ACL 2024; snap-research/locomo) into what the recall benchmark needs: one memory record per
// turn, said at its session's date by its speaker, and the questions whose evidence turns are annotated.
// The data is research data: it is read from outside the repository and never copied into the package.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One turn: `date` is its session's date as the data writes it ("1:56 pm on 8 May, 2023"), `session` its number. */
export type LocomoTurn = { id: string; speaker: string; text: string; at: number; date: string; session: number };
export type LocomoQuestion = { question: string; category: number; evidence: string[] };
export type LocomoConversation = { name: string; turns: LocomoTurn[]; questions: LocomoQuestion[]; unanswerable: number };

/** LoCoMo's category numbers, as the dataset's authors and later papers (mem0, Zep) name them. */
export const CATEGORY_NAMES: Record<number, string> = { 1: 'multi-hop', 2: 'temporal', 3: 'open-domain', 4: 'single-hop' };

const here = dirname(fileURLToPath(import.meta.url));

/**
 * The data folder: `LOCOMO_DIR`, else `shared/data/locomo-dev` beside the checkout (or its worktree
 * parent). Throws naming where it looked, so a missing download is a clear message, not an empty table.
 */
export function locomoDir(): string {
  const candidates = process.env.LOCOMO_DIR
    ? [resolve(process.env.LOCOMO_DIR)]
    : [resolve(here, '../../shared/data/locomo-dev'), resolve(here, '../../../shared/data/locomo-dev')];
  const found = candidates.find((dir) => existsSync(dir));
  if (found === undefined)
    throw new Error(
      `LoCoMo data not found (looked in ${candidates.join(', ')}). Set LOCOMO_DIR to a folder of locomo10 conversation files (one JSON object per file).`,
    );
  return found;
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** "1:56 pm on 8 May, 2023" as epoch ms (UTC: the data gives no zone). */
export function parseSessionDate(value: string): number {
  const m = /^(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})$/i.exec(value.trim());
  const month = m === null ? -1 : MONTHS.indexOf(m[5].toLowerCase());
  if (m === null || month < 0) throw new Error(`unreadable LoCoMo session date: ${JSON.stringify(value)}`);
  const hour = (Number(m[1]) % 12) + (m[3].toLowerCase() === 'pm' ? 12 : 0);
  return Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2]));
}

type RawTurn = { speaker: string; dia_id: string; text: string; blip_caption?: string };
type RawQa = { question: string; evidence?: string[]; category: number };

/** Every conversation file in `dir`, in name order; questions of categories 1-4 only (5 is adversarial). */
export function loadLocomo(dir: string): LocomoConversation[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => {
      const raw = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Record<string, unknown>;
      const turns: LocomoTurn[] = [];
      const sessions = Object.keys(raw)
        .map((k) => /^session_(\d+)$/.exec(k))
        .filter((m): m is RegExpExecArray => m !== null)
        .map((m) => Number(m[1]))
        .sort((a, b) => a - b);
      for (const n of sessions) {
        const date = String(raw[`session_${n}_date_time`]);
        const at = parseSessionDate(date);
        for (const turn of raw[`session_${n}`] as RawTurn[]) {
          // A shared photo is part of what was said: its caption is all the text the turn has about it.
          const photo = turn.blip_caption ? ` [shares a photo: ${turn.blip_caption}]` : '';
          turns.push({ id: turn.dia_id, speaker: turn.speaker, text: `${turn.text}${photo}`, at, date, session: n });
        }
      }
      const known = new Set(turns.map((t) => t.id));
      let unanswerable = 0;
      const questions: LocomoQuestion[] = [];
      for (const qa of raw.qa as RawQa[]) {
        if (qa.category < 1 || qa.category > 4) continue;
        // A few annotations pack several ids in one string ("D8:6; D9:17"); ids that name no turn are dropped.
        const evidence = [...new Set((qa.evidence ?? []).flatMap((e) => e.split(/[;,\s]+/)).filter((e) => known.has(e)))];
        if (evidence.length === 0) unanswerable++;
        else questions.push({ question: qa.question, category: qa.category, evidence });
      }
      return { name: file.replace(/\.json$/, ''), turns, questions, unanswerable };
    });
}
