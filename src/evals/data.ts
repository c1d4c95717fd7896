import { readFile } from 'node:fs/promises';
import type { EvalCase } from './types.js';
import { EvalDataError } from './errors.js';

/** The cases of `data`: the array as given (each checked), or a JSONL file read line by line. */
export async function loadCases<E>(data: ReadonlyArray<EvalCase<E>> | string): Promise<EvalCase<E>[]> {
  if (typeof data !== 'string') {
    if (!Array.isArray(data)) throw new EvalDataError('`data` must be an array of cases or the path of a JSONL file');
    return data.map((c, i) => checkCase(c, `case ${i}`));
  }
  let text: string;
  try {
    text = await readFile(data, 'utf8');
  } catch (error) {
    throw new EvalDataError(`cannot read the dataset ${data}: ${(error as Error).message}`, { cause: error });
  }
  const cases: EvalCase<E>[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new EvalDataError(`${data}:${i + 1}: not JSON (${(error as Error).message})`, { cause: error });
    }
    cases.push(checkCase(value as EvalCase<E>, `${data}:${i + 1}`));
  });
  return cases;
}

function checkCase<E>(value: EvalCase<E>, where: string): EvalCase<E> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new EvalDataError(`${where}: a case must be an object`);
  const input = value.input;
  const ok =
    typeof input === 'string' ||
    Array.isArray(input) ||
    (typeof input === 'object' && input !== null && Array.isArray((input as { messages?: unknown }).messages));
  if (!ok) throw new EvalDataError(`${where}: \`input\` must be a prompt (text or content blocks) or { messages: [...] }`);
  if (typeof input === 'string' && input.trim() === '') throw new EvalDataError(`${where}: \`input\` is empty`);
  if (value.id !== undefined && (typeof value.id !== 'string' || !/^[A-Za-z0-9_.-]{1,100}$/.test(value.id))) {
    throw new EvalDataError(`${where}: \`id\` must be 1 to 100 letters, digits, "_", "." or "-" (it names the case's session)`);
  }
  if (value.metadata !== undefined && (typeof value.metadata !== 'object' || value.metadata === null)) {
    throw new EvalDataError(`${where}: \`metadata\` must be an object`);
  }
  return value;
}
