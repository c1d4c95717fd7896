import { randomUUID } from 'node:crypto';
import type { RunEvent } from '../contract/events.js';
import type { InputAnswer, InputQuestion } from '../contract/tool.js';
import { RunAbortedError } from '../loop/errors.js';
import { compileSchema, formatIssues } from '../../schema/index.js';
import { InputUnavailableError, InvalidInputAnswerError, UnknownInputRequestError } from './errors.js';

/**
 * A question a running tool is waiting on, as `agent.pendingInputs()` lists it. A sub-agent's
 * (`agentTool`) has the `path` of agent tools it was asked under; `callId` and `name` are then its own
 * agent's call.
 */
export type InputRequest = {
  requestId: string;
  callId: string;
  name: string;
  message: string;
  schema: object;
  from?: string;
  path?: string[];
};

type Waiting = { request: InputRequest; check: (content: unknown) => string | null; settle: (answer: InputAnswer) => void };

/**
 * The questions one run's tools ask the person (`ToolContext.ask`): each is published as
 * `input_requested` and waits, with the tool, until `answer` gives it an answer whose content matches the
 * question's schema, or the run is aborted. Asked while nothing listens to the run, a question is
 * refused at once (`InputUnavailableError`): a headless run has nobody to answer.
 */
export class InputRequests {
  readonly #waiting = new Map<string, Waiting>();
  // Questions of sub-agents this run called, answered here and passed down to the agent that asked.
  readonly #relayed = new Map<string, { request: InputRequest; answer: (answer: InputAnswer) => void }>();

  constructor(
    private readonly runId: string,
    private readonly signal: AbortSignal,
    private readonly publish: (event: RunEvent) => void,
    private listened: () => boolean,
  ) {}

  /** True when a question asked now has someone to answer it. */
  get heard(): boolean {
    return this.listened();
  }

  /** A sub-agent's run: someone can answer its questions when someone can answer those of the run that called it. */
  within(listened: () => boolean): void {
    this.listened = listened;
  }

  /** A sub-agent's question (`input_requested` of its run): listed here and answered here, `answer` passing it down. */
  relay(request: InputRequest, answer: (answer: InputAnswer) => void): void {
    this.#relayed.set(request.requestId, { request, answer });
  }

  /** The sub-agent's question was answered (or its run ended): no longer listed. */
  settled(requestId: string): void {
    this.#relayed.delete(requestId);
  }

  ask(callId: string, name: string, question: InputQuestion): Promise<InputAnswer> {
    if (this.signal.aborted) return Promise.reject(new RunAbortedError({ cause: this.signal.reason }));
    if (!this.listened()) return Promise.reject(new InputUnavailableError(name));
    if (typeof question?.message !== 'string' || typeof question.schema !== 'object' || question.schema === null) {
      return Promise.reject(new InvalidInputAnswerError('a question needs a `message` string and a JSON Schema `schema` object'));
    }
    let compiled: ReturnType<typeof compileSchema>;
    try {
      compiled = compileSchema(question.schema, `the input schema of tool "${name}"`);
    } catch (error) {
      return Promise.reject(error);
    }
    const request: InputRequest = { requestId: randomUUID(), callId, name, message: question.message, schema: compiled.jsonSchema };
    if (typeof question.from === 'string') request.from = question.from;
    return new Promise<InputAnswer>((resolve, reject) => {
      const onAbort = (): void => {
        this.#waiting.delete(request.requestId);
        this.publish({ kind: 'input_answered', requestId: request.requestId, action: 'cancel', runId: this.runId });
        reject(new RunAbortedError({ cause: this.signal.reason }));
      };
      this.signal.addEventListener('abort', onAbort, { once: true });
      this.#waiting.set(request.requestId, {
        request,
        check: (content) => {
          const issues = compiled.check(content);
          if (issues instanceof Promise) return null;
          return issues.ok ? null : formatIssues(issues.issues);
        },
        settle: (answer) => {
          this.signal.removeEventListener('abort', onAbort);
          this.#waiting.delete(request.requestId);
          this.publish({ kind: 'input_answered', requestId: request.requestId, action: answer.action, runId: this.runId });
          resolve(answer);
        },
      });
      this.publish({ kind: 'input_requested', ...request, runId: this.runId });
    });
  }

  /** Gives request `requestId` its answer; throws (and the tool keeps waiting) for an unknown id or an answer that cannot be taken. */
  answer(requestId: string, answer: InputAnswer): void {
    const waiting = this.#waiting.get(requestId);
    if (waiting === undefined) {
      const relayed = this.#relayed.get(requestId);
      if (relayed === undefined) throw new UnknownInputRequestError(requestId);
      return relayed.answer(answer);
    }
    const action = (answer as { action?: unknown } | null)?.action;
    if (action === 'decline' || action === 'cancel') return waiting.settle({ action });
    if (action !== 'accept') throw new InvalidInputAnswerError('`action` must be "accept", "decline" or "cancel"');
    const content = (answer as { content?: unknown }).content;
    if (typeof content !== 'object' || content === null || Array.isArray(content)) {
      throw new InvalidInputAnswerError('an accepted answer needs its `content` as an object');
    }
    const problem = waiting.check(content);
    if (problem !== null) throw new InvalidInputAnswerError(`its content does not match what was asked:\n${problem}`);
    waiting.settle({ action: 'accept', content: content as Record<string, unknown> });
  }

  pending(): InputRequest[] {
    return [...this.#waiting.values(), ...this.#relayed.values()].map((waiting) => ({ ...waiting.request }));
  }
}
