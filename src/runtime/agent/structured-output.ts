import type { Turn } from '../contract/turn.js';
import type { ResponseFormat } from '../contract/model.js';
import { IndusagiError } from '../../errors/index.js';
import { compileSchema, formatIssues, type CompiledSchema, type SchemaIssue } from '../../schema/index.js';
import { lastAssistantText } from '../loop/batch.js';
import { parsePartialJson } from '../loop/partial-json.js';
import type { LoopEvent } from '../loop/types.js';

/** What `submit(prompt, { output })` asked for: the schema compiled, and what each request carries. */
export type OutputRequest = { compiled: CompiledSchema; responseFormat: ResponseFormat };

/** The prefix of the one repair prompt a run sends when its answer does not match the `output` schema. */
export const OUTPUT_REPAIR_PREFIX = '[output repair]';

/**
 * The final answer did not match `submit`'s `output` schema, after the one repair attempt too. `issues`
 * say why (a parse failure is an issue at the root); `text` is the answer as the model gave it.
 */
export class OutputValidationError extends IndusagiError {
  static override readonly errorName: string = 'OutputValidationError';
  constructor(
    readonly issues: SchemaIssue[],
    readonly text: string,
  ) {
    super('invalid_output', `The answer did not match the output schema, after one repair attempt:\n${formatIssues(issues)}`);
  }
}

/** Compiles `submit`'s `output` schema (once per schema object); `SchemaDefinitionError` when it cannot be used. */
export function outputRequest(schema: unknown): OutputRequest {
  const compiled = compileSchema(schema, 'submit `output`');
  return { compiled, responseFormat: { type: 'json', schema: compiled.jsonSchema } };
}

/**
 * The settled run's answer as the schema's value. When it does not parse or validate, `repair` is
 * asked, once, to put a user turn in the context saying what was wrong and to run the loop again; that
 * answer is judged the same way and throws `OutputValidationError` if it fails too. Returns undefined
 * when the repair run stopped waiting for approvals (the answer comes with the run that settles it).
 */
export async function settleOutput(
  output: OutputRequest,
  context: readonly Turn[],
  repair: (prompt: Turn) => Promise<'settled' | 'waiting'>,
): Promise<{ value: unknown } | undefined> {
  const first = await judge(output, lastAssistantText(context));
  if (first.ok) return { value: first.value };
  const status = await repair({ role: 'user', blocks: [{ kind: 'text', text: repairPrompt(first.issues) }] });
  if (status === 'waiting') return undefined;
  const text = lastAssistantText(context);
  const second = await judge(output, text);
  if (!second.ok) throw new OutputValidationError(second.issues, text);
  return { value: second.value };
}

/** Whether `text` is the answer: one JSON value (a ```json fence around it is tolerated) that the schema accepts. */
export async function judge(
  output: OutputRequest,
  text: string,
): Promise<{ ok: true; value: unknown } | { ok: false; issues: SchemaIssue[] }> {
  const json = unfenced(text.trim());
  if (json === '') return { ok: false, issues: [{ path: '', message: 'The answer has no text; one JSON value was required.' }] };
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    return {
      ok: false,
      issues: [{ path: '', message: `The answer is not valid JSON (${error instanceof Error ? error.message : String(error)}).` }],
    };
  }
  return output.compiled.check(value);
}

function repairPrompt(issues: SchemaIssue[]): string {
  return (
    `${OUTPUT_REPAIR_PREFIX} Your answer is not the JSON this task requires:\n${formatIssues(issues)}\n` +
    'Answer again with only one JSON value that matches the required schema, and no other text.'
  );
}

function unfenced(text: string): string {
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/.exec(text);
  return fenced === null ? text : fenced[1].trim();
}

/**
 * Follows one run's text as it streams and announces the answer's JSON so far whenever it grew. Text is
 * gathered per model call (a step's end starts afresh, so the tool-calling steps' words never mix into
 * the answer); each announcement is a value `parsePartialJson` is sure of, never one it may take back.
 */
export class PartialOutput {
  #text = '';
  #last: string | undefined;

  constructor(private readonly announce: (value: unknown) => void) {}

  see(event: LoopEvent): void {
    if (event.kind === 'step' || event.kind === 'model_retry') {
      this.#text = '';
      this.#last = undefined;
      return;
    }
    if (event.kind !== 'text_delta') return;
    this.#text += event.delta;
    const parsed = parsePartialJson(this.#text);
    if (parsed === undefined) return;
    const shown = JSON.stringify(parsed.value);
    if (shown === this.#last) return;
    this.#last = shown;
    this.announce(parsed.value);
  }
}
