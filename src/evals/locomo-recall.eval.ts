// Memory recall on LoCoMo as an evaluation module: `indusagi eval` runs it like any other module
// (`--json`, `--html`, `--baseline`), over the in-process memory store, summarized per category. The
// data is not part of the package: `LOCOMO` names locomo10.json (or a file or folder of conversations;
// default `locomo10.json` in the working folder), `LOCOMO_K` the cutoffs (default `5,10`),
// `LOCOMO_CATEGORIES` the question categories (default `1,2,3,4`). No model is called.
import { createMemoryStore } from '../memory/index.js';
import { defineEval } from './define.js';
import { EvalOptionsError } from './errors.js';
import { loadLocomo } from './locomo.js';
import { memoryRecallEval } from './memory-recall.js';

export default defineEval(async () => {
  const k = numbers('LOCOMO_K') ?? [5, 10];
  const categories = numbers('LOCOMO_CATEGORIES');
  const data = await loadLocomo(process.env.LOCOMO ?? 'locomo10.json');
  return {
    run: (controls) =>
      memoryRecallEval({ data, store: () => createMemoryStore(), k, ...(categories === undefined ? {} : { categories }), ...controls }),
  };
});

/** A comma-separated list of whole numbers from the environment; undefined when the variable is not set. */
function numbers(variable: string): number[] | undefined {
  const text = process.env[variable];
  if (text === undefined || text.trim() === '') return undefined;
  const parts = text.split(',').map((part) => part.trim());
  if (!parts.every((part) => /^\d+$/.test(part)))
    throw new EvalOptionsError(`${variable} must be whole numbers separated by commas (like "5,10"), got ${JSON.stringify(text)}`);
  return parts.map(Number);
}
