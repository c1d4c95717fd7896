// Model-judged scorers: a rubric, any model invoker as the judge, and its answer as structured output
// (`{ score, reason }`). What the judge spends is reported with the score, counted apart from the agent.
import type { ModelInvoker } from '../runtime/contract/model.js';
import { modelCard } from '../runtime/models/index.js';
import { estimateCost } from '../runtime/usage/index.js';
import { EvalOptionsError, JudgeReplyError } from './errors.js';
import { checkThreshold, isRecord } from './scorers.js';
import type { Scorer, ScorerInput } from './types.js';

export type ModelJudgeOptions = {
  name: string;
  /** What a good answer is, for the judge: the grading criteria in plain words. */
  rubric: string;
  /** The judge: any invoker (`anthropic(...)`, `createOpenAIInvoker(...)`, `fromAiSdk(...)`, a scripted one). */
  model: ModelInvoker;
  /** The model id sent, when the invoker does not carry one. */
  modelId?: string;
  threshold?: number;
  maxOutputTokens?: number;
  /** Show the judge the tool calls too. Default true. */
  withTrajectory?: boolean;
};

const VERDICT_SCHEMA = {
  type: 'object',
  properties: {
    score: { type: 'number', minimum: 0, maximum: 1, description: '0 (fails the rubric) to 1 (meets it fully)' },
    reason: { type: 'string', description: 'one or two sentences: why this score' },
  },
  required: ['score', 'reason'],
  additionalProperties: false,
} as const;

const SYSTEM =
  'You grade the answer of an AI agent against a rubric. Read the task, the answer and, when given, the expected answer and the tool calls. ' +
  'Reply with one JSON object {"score": number from 0 to 1, "reason": string} and nothing else.';

/**
 * A scorer whose verdict a model gives: the judge reads the rubric, the case's input, the answer, the
 * expected answer and the tool calls, and answers `{ score, reason }` as structured output. A reply
 * that is not that verdict is a `JudgeReplyError` (the case's score for this scorer records it, 0).
 */
export function modelJudge(options: ModelJudgeOptions): Scorer {
  if (typeof options?.name !== 'string' || options.name.trim() === '') throw new EvalOptionsError('modelJudge: `name` is required');
  if (typeof options.rubric !== 'string' || options.rubric.trim() === '')
    throw new EvalOptionsError(`modelJudge "${options.name}": \`rubric\` is required`);
  if (typeof options.model !== 'function') throw new EvalOptionsError(`modelJudge "${options.name}": \`model\` must be a ModelInvoker`);
  checkThreshold(options.name, options.threshold);
  const modelId = options.model.modelId ?? options.modelId;
  if (modelId === undefined) throw new EvalOptionsError(`modelJudge "${options.name}": the invoker carries no model id; give \`modelId\``);
  const card = options.model.card ?? modelCard(modelId);
  return {
    name: options.name,
    threshold: options.threshold,
    async score(input) {
      const reply = await options.model({
        model: modelId,
        system: SYSTEM,
        messages: [{ role: 'user', blocks: [{ kind: 'text', text: caseText(options.rubric, input, options.withTrajectory !== false) }] }],
        tools: [],
        maxOutputTokens: options.maxOutputTokens ?? 1024,
        temperature: 0,
        responseFormat: { type: 'json', schema: VERDICT_SCHEMA },
        cacheable: false,
      });
      const text = reply.turn.blocks.flatMap((b) => (b.kind === 'text' ? [b.text] : [])).join('');
      const verdict = parseVerdict(text, options.name);
      const usage = reply.usage;
      const cost = usage === undefined ? undefined : estimateCost(usage, card);
      return { ...verdict, usage, costUsd: cost?.usd };
    },
  };
}

function caseText(rubric: string, input: ScorerInput, withTrajectory: boolean): string {
  const parts = [
    `<rubric>\n${rubric}\n</rubric>`,
    `<task>\n${typeof input.input === 'string' ? input.input : JSON.stringify(input.input)}\n</task>`,
  ];
  parts.push(`<answer>\n${input.output}\n</answer>`);
  if (input.expected !== undefined)
    parts.push(`<expected>\n${typeof input.expected === 'string' ? input.expected : JSON.stringify(input.expected)}\n</expected>`);
  if (withTrajectory && input.trajectory.length > 0) {
    parts.push(
      `<tool_calls>\n${input.trajectory.map((s) => `${s.name}(${JSON.stringify(s.input)}) -> ${JSON.stringify(s.result)}`).join('\n')}\n</tool_calls>`,
    );
  }
  return parts.join('\n\n');
}

function parseVerdict(text: string, name: string): { score: number; reason: string } {
  let value: unknown;
  try {
    value = JSON.parse(text.trim().replace(/^```(?:json)?\s*|\s*```$/g, ''));
  } catch {
    throw new JudgeReplyError(`judge "${name}" did not answer JSON: ${JSON.stringify(text.slice(0, 200))}`);
  }
  if (!isRecord(value) || typeof value.score !== 'number' || !(value.score >= 0 && value.score <= 1) || typeof value.reason !== 'string') {
    throw new JudgeReplyError(`judge "${name}" answered ${JSON.stringify(value)}, not { score: 0..1, reason: string }`);
  }
  return { score: value.score, reason: value.reason };
}
