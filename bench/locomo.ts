// LoCoMo conversations (Maharana et al., "Evaluating Very Long-Term Conversational Memory of LLM Agents",
// ACL 2024; snap-research/locomo) as the recall benchmark needs them: where the data is, and each
// conversation's turns and scorable questions, read by the evaluations' own loader (src/evals/locomo.ts)
// so the benchmark and `memoryRecallEval` see the same data. The data is research data: it is read from
// outside the repository and never copied into the package.
import { existsSync, realpathSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LOCOMO_CATEGORIES, loadLocomo, type LocomoTurn } from '../src/evals/index.js';

export type BenchQuestion = { question: string; category: number; evidence: string[] };
export type BenchConversation = { name: string; turns: LocomoTurn[]; questions: BenchQuestion[]; unanswerable: number };

export { LOCOMO_CATEGORIES as CATEGORY_NAMES };

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

/**
 * The held-out data folder `given` (LOCOMO_HELDOUT_DIR), resolved; throws when it does not exist or is
 * the development folder itself, which would make the check compare the half with itself.
 */
export function heldOutDirectory(given: string): string {
  const dir = resolve(given);
  if (!existsSync(dir)) throw new Error(`LOCOMO_HELDOUT_DIR names ${dir}, which does not exist.`);
  if (realpathSync(dir) === realpathSync(locomoDir()))
    throw new Error(`LOCOMO_HELDOUT_DIR is the development data itself (${dir}); point it at the held-out conversations.`);
  return dir;
}

/**
 * Every conversation file in `dir`, in name order, read by the evaluations' loader (`loadLocomo`), with
 * the questions of categories 1-4 whose evidence names a turn (5 is adversarial: the conversation holds no answer);
 * `unanswerable` counts the others.
 */
export async function readLocomo(dir: string): Promise<BenchConversation[]> {
  const data = await loadLocomo(dir);
  return data.conversations.map((c) => {
    const asked = c.questions.filter((q) => q.category >= 1 && q.category <= 4);
    const questions = asked
      .filter((q) => q.evidence.length > 0)
      .map(({ question, category, evidence }) => ({ question, category, evidence }));
    return { name: c.name, turns: c.turns, questions, unanswerable: asked.length - questions.length };
  });
}
