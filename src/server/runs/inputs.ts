import type { InputRequest } from '../../runtime/agent/input-requests.js';
import type { InputAnswer } from '../../runtime/contract/tool.js';
import { compileSchema, formatIssues } from '../../schema/index.js';
import { InvalidAnswerError } from '../errors.js';
import type { ServerRunEvent } from '../types.js';

/** The event kinds that say which questions a run waits on (what `pendingInputsOf` reads). */
export const INPUT_EVENT_KINDS = ['input_requested', 'input_answered', 'run_taken_over'] as const;

/**
 * A question's answer is a small form, kept until its run ends (a row on PostgreSQL): the server takes
 * this many bytes of its JSON.
 */
export const MAX_ANSWER_BYTES = 6_000;

/**
 * The questions a running run's tools wait on, from its stored events: each `input_requested` without
 * its `input_answered`, the run's own and its sub-agents' at any depth (a `nested` event carrying one;
 * the request gets the event's `path`, and the run's conductor hands the answer down). A question does
 * not survive its worker: a takeover (the run's own `run_taken_over`) starts the list afresh, since the
 * new worker's conductor answers the cut-off call as interrupted (or runs an idempotent one again,
 * which then asks anew).
 */
export function pendingInputsOf(events: Iterable<ServerRunEvent>): InputRequest[] {
  const waiting = new Map<string, InputRequest>();
  for (const event of events) {
    if (event.kind === 'run_taken_over') waiting.clear();
    else if (event.kind === 'input_requested') {
      const { kind: _kind, runId: _runId, ...request } = event as typeof event & { path?: string[] };
      waiting.set(request.requestId, request);
    } else if (event.kind === 'input_answered') waiting.delete(event.requestId);
    else if (event.kind === 'nested') {
      const inner = event.event;
      if (inner.kind === 'input_requested') {
        const { kind: _kind, runId: _runId, ...request } = inner;
        waiting.set(request.requestId, { ...request, path: [...event.path] });
      } else if (inner.kind === 'input_answered') waiting.delete(inner.requestId);
    }
  }
  return [...waiting.values()];
}

/**
 * Checks `answer` the way the worker's conductor will (`agent.answer`), so a bad one is refused here,
 * with its problems, and never reaches the tool: `decline` and `cancel` carry nothing, `accept` an
 * object matching the question's JSON Schema. Returns the answer as the tool gets it.
 */
export async function checkAnswer(request: InputRequest, answer: { action: string; content?: unknown }): Promise<InputAnswer> {
  const { requestId } = request;
  if (answer.action === 'decline' || answer.action === 'cancel') {
    if (answer.content !== undefined) throw new InvalidAnswerError(`A ${answer.action} carries no content.`, requestId);
    return { action: answer.action };
  }
  const content = answer.content;
  if (typeof content !== 'object' || content === null || Array.isArray(content))
    throw new InvalidAnswerError('An accepted answer needs its `content` as an object.', requestId);
  const size = Buffer.byteLength(JSON.stringify(content));
  if (size > MAX_ANSWER_BYTES)
    throw new InvalidAnswerError(
      `The answer's content is ${size} bytes of JSON; this server takes at most ${MAX_ANSWER_BYTES}.`,
      requestId,
    );
  const checked = await compileSchema(request.schema, `the schema of input request ${requestId}`).check(content);
  if (!checked.ok)
    throw new InvalidAnswerError(`The content does not match what was asked:\n${formatIssues(checked.issues)}`, requestId, checked.issues);
  return { action: 'accept', content: content as Record<string, unknown> };
}
