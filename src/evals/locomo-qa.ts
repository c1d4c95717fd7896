// LoCoMo question answering as an evaluation: an answering agent whose memory holds the conversation
// (every turn saved, recalled into its context by the question) answers each question, and a model
// judge grades the answer against the gold one. Two model calls per question: the answer and the verdict.
import { createContextManager, memorySource } from '../context/index.js';
import { createMemoryStore, type MemoryStore } from '../memory/index.js';
import { defineConductor, type AgentDefinition } from '../runtime/agent/index.js';
import type { ModelInvoker } from '../runtime/contract/index.js';
import type { SessionStoreLike } from '../runtime/store/index.js';
import { currentCase } from './case-context.js';
import { EvalOptionsError } from './errors.js';
import { modelJudge } from './judge.js';
import { locomoCases, locomoCategory, type LocomoConversation, type LocomoData, type LocomoTurn } from './locomo.js';
import type { EvaluableAgent, EvaluateOptions } from './types.js';

export type LocomoQaOptions = {
  /** Names the evaluation and its sessions. Default `locomo-qa`. */
  name?: string;
  data: LocomoData;
  /** The answering model: any invoker (`anthropic(...)`, `createOpenAIInvoker(...)`, `fromAiSdk(...)`, a recording). */
  answerer: ModelInvoker;
  /** Its model id, when the invoker carries none. */
  answererId?: string;
  /** The judge: any invoker, the answerer's too. Its tokens and cost are counted apart (`judgeUsage`). */
  judge: ModelInvoker;
  judgeId?: string;
  /** A fresh memory store per conversation. Default `createMemoryStore()` (in process, ranked by words). */
  memory?: (conversation: LocomoConversation) => MemoryStore | Promise<MemoryStore>;
  /** Records recalled into the answerer's context per question. Default 10. */
  k?: number;
  /** Question categories. Default 1-4. */
  categories?: readonly number[];
  /** Where the answerer's sessions are kept (also `evaluate`'s `store`: a journaled run resumes a cut-off case from them). */
  sessions?: SessionStoreLike;
  /** A turn's text as saved. Default `[session date] Speaker: text`: the answerer needs the date for "when" questions. */
  turnText?: (turn: LocomoTurn, conversation: LocomoConversation) => string;
  /** The answerer's system prompt. Default `LOCOMO_ANSWER_SYSTEM`. */
  system?: string;
  /** The judge's rubric. Default `LOCOMO_JUDGE_RUBRIC`. */
  rubric?: string;
  /** The most the answerer may write. Default 200 tokens: answers are a phrase. */
  maxOutputTokens?: number;
};

/** What the answering agent is told: answer from the recalled memory, briefly. */
export const LOCOMO_ANSWER_SYSTEM =
  'You answer questions about a long conversation between two people. What you remember of it is below: ' +
  'turns, each with the date of its session and its speaker. Answer from those memories alone, in a short ' +
  'phrase. For a question about when, give the date (work out dates such as "last week" from the session date). ' +
  'If the memories do not say, answer that you do not know.';

/** What the judge grades by: as in the LoCoMo evaluations of mem0 and Zep, generous about wording, strict about facts. */
export const LOCOMO_JUDGE_RUBRIC =
  'The task is a question about a conversation; the expected answer is the gold answer. Score 1 when the answer ' +
  'gives the same facts as the gold answer (other wording, more detail, or another date format for the same day, ' +
  'month or period are fine), 0 when it contradicts it, misses its point, or does not answer. When the gold answer ' +
  'lists several items, score the share of them the answer gives.';

/**
 * The evaluation options (`evaluate(await locomoQaEval({...}))`, or a `defineEval` module's return) for
 * LoCoMo question answering: one case per question (`locomoCases`), answered by an agent over
 * `answerer` whose context recalls the top `k` turns of that question's conversation from a memory
 * store holding every turn, and scored `correct` by `judge` (`modelJudge` with `LOCOMO_JUDGE_RUBRIC`).
 * Two model calls per question; the summary groups by category. The stores are filled here, before
 * any case runs.
 */
export async function locomoQaEval(options: LocomoQaOptions): Promise<EvaluateOptions<string>> {
  checkOptions(options);
  const k = options.k ?? 10;
  const text = options.turnText ?? ((turn: LocomoTurn) => `[${turn.date}] ${turn.speaker}: ${turn.text}`);
  const data = locomoCases(options.data, { categories: options.categories });
  const conversationOf = new Map(data.map((c) => [c.id!, c.metadata!.conversation as string]));
  const asked = new Set(conversationOf.values());
  const model =
    options.answerer.modelId === undefined
      ? { model: checkId(options.answererId, 'answererId', 'answerer'), invokeModel: options.answerer }
      : { model: options.answerer };
  const definitions = new Map<string, AgentDefinition>();
  for (const conversation of options.data.conversations) {
    if (!asked.has(conversation.name)) continue;
    const memory = await (options.memory ?? (() => createMemoryStore()))(conversation);
    if (typeof memory?.save !== 'function' || typeof memory.search !== 'function')
      throw new EvalOptionsError(`locomoQaEval: \`memory\` gave no memory store for conversation "${conversation.name}"`);
    for (const turn of conversation.turns) {
      await memory.save(text(turn, conversation), {
        meta: { turn: turn.id, session: turn.session, speaker: turn.speaker },
        provenance: { sessionId: conversation.name, at: turn.at },
      });
    }
    const context = createContextManager({
      // Generous: k turns of a few dozen tokens each never come near it, so no recall is skipped.
      budget: { maxTokens: 100_000, reserve: 4_096, count: (t) => Math.ceil(t.length / 4) },
      sources: [memorySource(memory, { recall: { k } })],
    });
    definitions.set(
      conversation.name,
      defineConductor(
        {
          model: model.model,
          name: 'locomo-answerer',
          system: options.system ?? LOCOMO_ANSWER_SYSTEM,
          context,
          // The answer comes from recall alone: no history tools to browse the (empty) session with.
          history: false,
          maxOutputTokens: options.maxOutputTokens ?? 200,
        },
        { ...(model.invokeModel === undefined ? {} : { invokeModel: model.invokeModel }), store: options.sessions },
      ),
    );
  }
  // One definition per conversation (its own memory); `evaluate` opens the agent inside the case, so
  // the case says which conversation the question is about.
  const agent: EvaluableAgent = {
    open(o) {
      const caseId = currentCase()?.caseId;
      const conversation = caseId === undefined ? undefined : conversationOf.get(caseId);
      if (conversation === undefined)
        throw new EvalOptionsError('the LoCoMo answerer answers LoCoMo cases: open it through evaluate, with the cases locomoQaEval made');
      return definitions.get(conversation)!.open(o);
    },
  };
  const correct = modelJudge({
    name: 'correct',
    rubric: options.rubric ?? LOCOMO_JUDGE_RUBRIC,
    model: options.judge,
    ...(options.judge.modelId === undefined ? { modelId: checkId(options.judgeId, 'judgeId', 'judge') } : {}),
    withTrajectory: false,
    maxOutputTokens: 200,
  });
  return {
    name: options.name ?? 'locomo-qa',
    agent,
    data,
    scorers: [correct],
    groupBy: locomoCategory,
    ...(options.sessions === undefined ? {} : { store: options.sessions }),
  };
}

function checkOptions(options: LocomoQaOptions): void {
  if (typeof options !== 'object' || options === null) throw new EvalOptionsError('locomoQaEval needs options: { data, answerer, judge }');
  if (typeof options.answerer !== 'function') throw new EvalOptionsError('locomoQaEval: `answerer` must be a ModelInvoker');
  if (typeof options.judge !== 'function') throw new EvalOptionsError('locomoQaEval: `judge` must be a ModelInvoker');
  if (options.memory !== undefined && typeof options.memory !== 'function')
    throw new EvalOptionsError('locomoQaEval: `memory` must be a function giving a fresh memory store per conversation');
  if (options.k !== undefined && !(Number.isInteger(options.k) && options.k >= 1))
    throw new EvalOptionsError('locomoQaEval: `k` must be a whole number >= 1');
}

function checkId(id: string | undefined, option: string, what: string): string {
  if (typeof id !== 'string' || id === '') throw new EvalOptionsError(`locomoQaEval: the ${what} carries no model id; give \`${option}\``);
  return id;
}
