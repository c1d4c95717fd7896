import type { ComponentType } from 'react';
import type { DynamicToolUIPart } from 'ai';
import type { AgentDataPart } from 'indusagi/ui-message';
import type { ChatMessage } from './api.js';
import { MarkdownText } from './markdown.js';

export type Decide = (approvalId: string, approved: boolean) => void;
type CardProps = { part: DynamicToolUIPart; busy: boolean; decide: Decide };

/** How a card reads each state a call goes through, from the moment it starts running. */
const STATES = {
  'input-streaming': { state: 'running', label: 'Running…' },
  'input-available': { state: 'running', label: 'Running…' },
  'approval-requested': { state: 'waiting', label: 'Needs your approval' },
  'approval-responded': { state: 'running', label: 'Running…' },
  'output-available': { state: 'done', label: 'Done' },
  'output-error': { state: 'failed', label: 'Failed' },
  'output-denied': { state: 'rejected', label: 'Rejected' },
} as const;

/**
 * A tool call as a card, shown from the moment the call starts (running) to its end (done, failed,
 * rejected), or waiting for Approve / Reject. Generative UI: one small component per tool name gives
 * the card its body; anything else gets the generic one.
 */
export function ToolCard({
  part,
  busy,
  decide,
  nested,
  calls = [part.toolCallId],
}: CardProps & {
  /** Every sub-agent part of the message (`agentParts`): those of a sub-agent this call started show inside the card. */
  nested: AgentDataPart[];
  /** The call ids from the reply's own call down to this one (a sub-agent's call sits under its agent's). */
  calls?: string[];
}) {
  const denied = part.state === 'approval-responded' && part.approval.approved === false;
  const { state, label } = denied ? { state: 'rejected', label: 'Rejected' } : STATES[part.state];
  const answer = agentAnswer(part);
  const Body = answer !== null ? AgentCard : (CARDS[part.toolName] ?? GenericCard);
  // The sub-agent's answer is the last text of its run inside the card; a call whose run the server
  // could not rebuild (its session lives elsewhere) shows the answer itself.
  const shown = nested.some((one) => sameCalls(one.calls, calls));
  return (
    <div className={`tool ${state}`} data-tool={part.toolName} data-call={part.toolCallId} data-state={state}>
      <div className="tool-head">
        <span className="tool-name">{part.toolName}</span>
        <span className="tool-state">
          {state === 'running' && <span className="spinner" aria-hidden="true" />}
          {label}
        </span>
      </div>
      <Body part={part} busy={busy} decide={decide} />
      {answer !== null && !shown && (
        <div className="tool-answer">
          <MarkdownText text={answer} />
        </div>
      )}
      <AgentRun name={part.toolName} calls={calls} nested={nested} busy={busy} decide={decide} />
    </div>
  );
}

/** A message's sub-agent parts (`data-agent`), in the order they arrived. */
export const agentParts = (message: ChatMessage): AgentDataPart[] =>
  message.parts.flatMap((part) => (part.type === 'data-agent' ? [part.data] : []));

/**
 * One sub-agent's parts with each run of consecutive text parts joined into one: the stream sends its
 * text a delta a part (at most `NESTED_TEXT_CAP` chars each), and markdown cut between two parts must
 * render whole. Its calls stay as they are, in order.
 */
function joinText(parts: readonly AgentDataPart[]): AgentDataPart[] {
  const out: AgentDataPart[] = [];
  for (const one of parts) {
    const last = out.at(-1);
    if (one.part.type === 'text' && last !== undefined && last.part.type === 'text')
      out[out.length - 1] = { ...last, part: { type: 'text', text: last.part.text + one.part.text } };
    else out.push(one);
  }
  return out;
}

const sameCalls = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((id, i) => id === b[i]);

/**
 * What the sub-agent a call started did (`agentTool`, issue 29), inside that call's card: its text and
 * its own calls, as the same cards, each holding what its own sub-agents did in turn. Nothing for a
 * call that is no agent's.
 */
function AgentRun({
  name,
  calls,
  nested,
  busy,
  decide,
}: {
  name: string;
  calls: string[];
  nested: AgentDataPart[];
  busy: boolean;
  decide: Decide;
}) {
  const own = joinText(nested.filter((part) => sameCalls(part.calls, calls)));
  if (own.length === 0) return null;
  return (
    <div className="tool-agent" role="group" aria-label={`What ${name} did`}>
      {own.map(({ part }, i) => {
        if (part.type === 'text') return <MarkdownText key={`text-${i}`} text={part.text} />;
        if (part.type !== 'tool') return null;
        return (
          <ToolCard
            key={part.callId}
            part={nestedCall(part, calls)}
            busy={busy}
            decide={decide}
            nested={nested}
            calls={[...calls, part.callId]}
          />
        );
      })}
    </div>
  );
}

/**
 * A sub-agent's call in the shape of the reply's own calls, so it gets the same card. One waiting for
 * approval is decided at the top, by the id the stream gave the reply's call (its calls, then its own id).
 */
function nestedCall(part: Extract<AgentDataPart['part'], { type: 'tool' }>, calls: string[]): DynamicToolUIPart {
  const base = { type: 'dynamic-tool' as const, toolName: part.name, toolCallId: part.callId, input: part.input ?? null };
  if (part.approvalId !== undefined)
    return { ...base, state: 'approval-requested', approval: { id: [...calls, part.approvalId].join('/') } };
  if (part.isError) return { ...base, state: 'output-error', errorText: String(part.result) };
  if (part.result === undefined) return { ...base, state: 'input-available' };
  return { ...base, state: 'output-available', output: part.result };
}

/**
 * The thread read back from the server (after a turn) has the sub-agent parts it rebuilt from each
 * sub-agent's own session; a call whose session it could not find has none. The parts shown live stay
 * with the call they belong to then, so a reply does not lose them the moment it ends.
 */
export function keepAgentParts(shown: ChatMessage[], fresh: ChatMessage[]): ChatMessage[] {
  const byCall = new Map<string, ChatMessage['parts']>();
  for (const message of shown)
    for (const part of message.parts) {
      if (part.type !== 'data-agent') continue;
      const under = part.data.calls[0];
      const kept = byCall.get(under);
      if (kept === undefined) byCall.set(under, [part]);
      else kept.push(part);
    }
  if (byCall.size === 0) return fresh;
  return fresh.map((message) => {
    const kept = message.parts.flatMap((part) => (part.type === 'dynamic-tool' ? (byCall.get(part.toolCallId) ?? []) : []));
    return kept.length === 0 || message.parts.some((part) => part.type === 'data-agent')
      ? message
      : { ...message, parts: [...message.parts, ...kept] };
  });
}

const input = (part: DynamicToolUIPart) => (part.input ?? {}) as Record<string, string>;

/** What the call returned, as text: the tool's value live, the text the model was sent after a reload. */
function resultText(part: DynamicToolUIPart): string | null {
  if (part.state === 'output-error') return part.errorText;
  if (part.state !== 'output-available') return null;
  return typeof part.output === 'string' ? part.output : JSON.stringify(part.output, null, 2);
}

/** The output, folded: a long listing would push the conversation out of view. */
function Output({ part, open = false }: { part: DynamicToolUIPart; open?: boolean }) {
  const text = resultText(part);
  if (text === null) return null;
  return (
    <details className="tool-output" open={open || part.state === 'output-error'}>
      <summary>{part.state === 'output-error' ? 'Error' : 'Output'}</summary>
      <pre tabIndex={0}>{text}</pre>
    </details>
  );
}

function WriteCard({ part, busy, decide }: CardProps) {
  const { path, content } = input(part);
  if (part.state === 'approval-requested') {
    const id = part.approval.id;
    return (
      <>
        <p className="tool-title">
          Write <code>{path}</code>?
        </p>
        <pre tabIndex={0}>{content}</pre>
        <div className="tool-actions">
          <button type="button" className="primary" disabled={busy} onClick={() => decide(id, true)}>
            Approve
          </button>
          <button type="button" disabled={busy} onClick={() => decide(id, false)}>
            Reject
          </button>
        </div>
      </>
    );
  }
  const outcome =
    part.state === 'output-available' ? 'written' : part.state === 'output-error' || part.state === 'output-denied' ? 'rejected' : null;
  return (
    <>
      <p className="tool-title">
        Write <code>{path}</code>
      </p>
      {outcome !== null && (
        <p className="tool-outcome" data-outcome={outcome}>
          {outcome === 'written'
            ? resultText(part)
            : `Not written: ${part.state === 'output-denied' ? 'you rejected it.' : resultText(part)}`}
        </p>
      )}
    </>
  );
}

function ListCard({ part }: CardProps) {
  return (
    <>
      <p className="tool-title">
        Files in <code>{input(part).path}</code>
      </p>
      <Output part={part} open />
    </>
  );
}

function ReadCard({ part }: CardProps) {
  return (
    <>
      <p className="tool-title">
        Read <code>{input(part).path}</code>
      </p>
      <Output part={part} />
    </>
  );
}

/**
 * A sub-agent's answer (an `agentTool` result is `{ sessionId, answer }`), from the value live or the
 * text the model was sent after a reload: shown as the text it is, not as that object's JSON.
 */
function agentAnswer(part: DynamicToolUIPart): string | null {
  if (part.state !== 'output-available') return null;
  let output: unknown = part.output;
  if (typeof output === 'string' && output.startsWith('{')) {
    try {
      output = JSON.parse(output);
    } catch {
      return null; // Text that only looks like JSON: the tool's own output, shown as it is.
    }
  }
  if (typeof output !== 'object' || output === null) return null;
  const { sessionId, answer } = output as { sessionId?: unknown; answer?: unknown };
  return typeof sessionId === 'string' && typeof answer === 'string' ? answer : null;
}

/** A sub-agent's call: what it was asked; its answer shows below (see ToolCard), never as raw JSON. */
function AgentCard({ part }: CardProps) {
  return <Fields part={part} />;
}

function Fields({ part }: { part: DynamicToolUIPart }) {
  const fields = Object.entries((part.input ?? {}) as Record<string, unknown>);
  if (fields.length === 0) return null;
  return (
    <dl className="tool-input">
      {fields.map(([name, value]) => (
        <div key={name}>
          <dt>{name}</dt>
          <dd>{typeof value === 'string' ? value : JSON.stringify(value)}</dd>
        </div>
      ))}
    </dl>
  );
}

function GenericCard({ part }: CardProps) {
  return (
    <>
      <Fields part={part} />
      <Output part={part} open />
    </>
  );
}

const CARDS: Record<string, ComponentType<CardProps>> = {
  'files.write': WriteCard,
  'files.list': ListCard,
  'files.read': ReadCard,
};
