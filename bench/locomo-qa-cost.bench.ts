// `npm run bench locomo-qa-cost`: what LoCoMo question answering (`locomoQaEval`) costs before it is run
// with a key. The whole evaluation runs offline on the LoCoMo data (LOCOMO_DIR, default the development
// half beside the checkout) with stand-in models behind the ModelInvoker seam: the answerer replies
// with the gold answer, the judge with a verdict of a typical length, and each reports as its usage the
// tokens of what it was actually sent (its request's text at 4 characters a token, the judge's answer
// schema included) and of what it replied. Printed: the model calls, the tokens, and what they cost at
// the list prices of a few models' cards. Real answers run a little longer than gold ones; the count of
// calls is exact (one answer and one verdict per question).
import { modelCard } from '../src/runtime/models/index.js';
import { evaluate, loadLocomo, locomoQaEval } from '../src/evals/index.js';
import type { ModelInvoker, ModelReply, ModelRequest } from '../src/runtime/index.js';
import { addUsage, estimateCost, zeroUsage } from '../src/runtime/usage/index.js';
import { locomoDir } from './locomo.js';
import { fmt, now } from './stats.js';

const K = 10;
const MODELS = ['claude-haiku-4-5', 'claude-sonnet-4-5', 'gpt-5-mini', 'gpt-4.1-mini', 'gpt-4o-mini'];
const tokens = (text: string) => Math.ceil(text.length / 4);

const started = now();
const data = await loadLocomo(locomoDir());
const gold = new Map(data.conversations.flatMap((c) => c.questions.map((q) => [q.question, q.answer ?? ''])));

function sent(request: ModelRequest): number {
  const text = request.messages.flatMap((t) => t.blocks).flatMap((b) => (b.kind === 'text' ? [b.text] : []));
  const schema = request.responseFormat?.type === 'json' ? JSON.stringify(request.responseFormat.schema) : '';
  return tokens([request.system ?? '', request.volatileSystem ?? '', ...text, schema].join('\n'));
}

function standIn(reply: (request: ModelRequest) => string): ModelInvoker & { calls: number } {
  const invoke = async (request: ModelRequest): Promise<ModelReply> => {
    invoke.calls++;
    const text = reply(request);
    return {
      turn: { role: 'assistant', blocks: [{ kind: 'text', text }] },
      stopReason: 'end_turn',
      usage: { inputTokens: sent(request), outputTokens: tokens(text), cacheReadTokens: 0, cacheWriteTokens: 0 },
    };
  };
  invoke.calls = 0;
  return Object.assign(invoke, { modelId: MODELS[0] });
}

const answerer = standIn((request) => {
  const question = request.messages
    .at(-1)!
    .blocks.flatMap((b) => (b.kind === 'text' ? [b.text] : []))
    .join('');
  return gold.get(question) ?? 'I do not know.';
});
const judge = standIn(() =>
  JSON.stringify({ score: 1, reason: 'The answer names the same event and the same date as the gold answer, in other words.' }),
);

const options = await locomoQaEval({ data, answerer, judge, k: K });
const result = await evaluate({ ...options, concurrency: 8 });
const answers = result.summary.usage;
const verdicts = result.summary.judgeUsage;
const all = zeroUsage();
addUsage(all, answers);
addUsage(all, verdicts);

const questions = result.cases.length;
console.log(`LoCoMo from ${data.source}: ${data.conversations.length} conversations, ${questions} questions (categories 1-4), k ${K}`);
console.log(`model calls: ${answerer.calls} answers + ${judge.calls} verdicts = ${answerer.calls + judge.calls}`);
const per = (n: number) => Math.round(n / questions);
console.log(`tokens, answerer: ${answers.inputTokens} in (${per(answers.inputTokens)} a question), ${answers.outputTokens} out`);
console.log(`tokens, judge:    ${verdicts.inputTokens} in (${per(verdicts.inputTokens)} a question), ${verdicts.outputTokens} out`);
console.log('\ncost with one model as both answerer and judge, at its list prices (no caching):');
for (const id of MODELS) {
  const cost = estimateCost(all, modelCard(id));
  console.log(`  ${id.padEnd(20)} $${cost?.usd.toFixed(2) ?? '?'}`);
}
console.log(`\ntotal ${fmt((now() - started) / 1000)} s`);
