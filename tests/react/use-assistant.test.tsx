// @vitest-environment happy-dom
import { StrictMode } from 'react';
import { act, fireEvent, render, renderHook, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { useAssistant } from '../../src/react/index.js';
import type { AssistantItem, AssistantStream, AssistantStreamInfo } from '../../src/chat/index.js';
import type { AgentPart } from '../../src/parts/index.js';
import { PartChannel, text, tool } from '../chat/channel.js';

function channelStream() {
  const channels: PartChannel[] = [];
  const calls: Array<{ prompt: string; history: AssistantItem[]; info: AssistantStreamInfo }> = [];
  const stream: AssistantStream = (prompt, history, info) => {
    calls.push({ prompt, history, info });
    const channel = new PartChannel();
    channels.push(channel);
    return channel;
  };
  return { stream, channels, calls };
}

describe('useAssistant', () => {
  it('returns the documented shape, idle and empty', () => {
    const { stream } = channelStream();
    const { result } = renderHook(() => useAssistant({ stream }));
    expect(result.current).toMatchObject({ items: [], input: '', busy: false });
    for (const fn of ['setInput', 'send', 'reset'] as const) expect(typeof result.current[fn]).toBe('function');
  });

  it('runs a turn: clears the input, re-renders as parts arrive, joins text, calls onPart and onDone', async () => {
    const { stream, channels, calls } = channelStream();
    const seen: AgentPart[] = [];
    let done = 0;
    const { result } = renderHook(() => useAssistant({ stream, onPart: (p) => seen.push(p), onDone: () => done++ }));

    act(() => result.current.setInput('  list my notes '));
    expect(result.current.input).toBe('  list my notes ');
    let sent!: Promise<void>;
    act(() => {
      sent = result.current.send();
    });
    expect(calls[0].prompt).toBe('list my notes');
    expect(result.current).toMatchObject({ input: '', busy: true });
    expect(result.current.items).toEqual([
      { role: 'user', text: 'list my notes' },
      { role: 'assistant', parts: [] },
    ]);

    await act(async () => {
      channels[0].push(text('You have '), text('two notes.'));
      await channels[0].pulled(3);
    });
    expect(result.current.items[1]).toEqual({ role: 'assistant', parts: [text('You have two notes.')] });
    expect(result.current.busy).toBe(true);

    await act(async () => {
      channels[0].push(tool('c1'), { type: 'context', source: 'tools', op: 'loaded', tools: ['notes.list'] });
      channels[0].end();
      await sent;
    });
    expect(result.current.items[1]).toEqual({
      role: 'assistant',
      parts: [text('You have two notes.'), tool('c1'), { type: 'context', source: 'tools', op: 'loaded', tools: ['notes.list'] }],
    });
    expect(result.current.busy).toBe(false);
    expect(seen).toHaveLength(4);
    expect(done).toBe(1);
  });

  it('ignores send() with blank input or while a turn runs', async () => {
    const { stream, channels, calls } = channelStream();
    const { result } = renderHook(() => useAssistant({ stream }));
    await act(() => result.current.send());
    act(() => result.current.setInput('   '));
    await act(() => result.current.send());
    expect(calls).toHaveLength(0);

    act(() => result.current.setInput('one'));
    let first!: Promise<void>;
    act(() => {
      first = result.current.send();
    });
    act(() => result.current.setInput('two'));
    await act(() => result.current.send());
    expect(calls).toHaveLength(1);
    expect(result.current.input).toBe('two');
    await act(async () => {
      channels[0].end();
      await first;
    });
  });

  it('send(override) marks the turn spoken', async () => {
    const { stream, channels, calls } = channelStream();
    const { result } = renderHook(() => useAssistant({ stream }));
    let sent!: Promise<void>;
    act(() => {
      sent = result.current.send('call mum');
    });
    expect(calls[0].info.spoken).toBe(true);
    expect(result.current.items[0]).toEqual({ role: 'user', text: 'call mum', spoken: true });
    await act(async () => {
      channels[0].end();
      await sent;
    });
  });

  it('when stream throws: busy resets, onDone runs, the promise from send rejects and error is exposed', async () => {
    const boom = new Error('upstream 529');
    let done = 0;
    const { result } = renderHook(() =>
      useAssistant({
        stream: () => {
          throw boom;
        },
        onDone: () => done++,
      }),
    );
    act(() => result.current.setInput('hi'));
    let outcome: unknown;
    await act(async () => {
      outcome = await result.current.send().catch((e: unknown) => e);
    });
    expect(outcome).toBe(boom);
    expect(result.current.busy).toBe(false);
    expect(result.current.error).toBe(boom);
    expect(done).toBe(1);
  });

  it('reset() clears the thread but does not stop the running turn', async () => {
    const { stream, channels, calls } = channelStream();
    const seen: AgentPart[] = [];
    const { result } = renderHook(() => useAssistant({ stream, onPart: (p) => seen.push(p) }));
    act(() => result.current.setInput('hi'));
    let sent!: Promise<void>;
    act(() => {
      sent = result.current.send();
    });
    act(() => result.current.reset());
    expect(result.current.items).toEqual([]);
    expect(result.current.busy).toBe(true);
    expect(calls[0].info.signal?.aborted).toBe(false);
    await act(async () => {
      channels[0].push(text('still streaming'));
      channels[0].end();
      await sent;
    });
    expect(seen).toEqual([text('still streaming')]);
    expect(result.current.items).toEqual([]);
    expect(result.current.busy).toBe(false);
  });

  it('uses the latest callbacks after a re-render', async () => {
    const { stream, channels } = channelStream();
    const first: AgentPart[] = [];
    const second: AgentPart[] = [];
    const { result, rerender } = renderHook(({ sink }) => useAssistant({ stream, onPart: (p) => sink.push(p) }), {
      initialProps: { sink: first },
    });
    act(() => result.current.setInput('hi'));
    let sent!: Promise<void>;
    act(() => {
      sent = result.current.send();
    });
    rerender({ sink: second });
    await act(async () => {
      channels[0].push(text('x'));
      channels[0].end();
      await sent;
    });
    expect(first).toEqual([]);
    expect(second).toEqual([text('x')]);
  });

  it('keeps the same functions across renders, so they can sit in dependency arrays', () => {
    const { stream } = channelStream();
    const { result } = renderHook(() => useAssistant({ stream }));
    const { send, setInput, reset } = result.current;
    act(() => result.current.setInput('changed'));
    expect(result.current.send).toBe(send);
    expect(result.current.setInput).toBe(setInput);
    expect(result.current.reset).toBe(reset);
  });

  it('stops a running turn when the component unmounts', () => {
    const { stream, calls } = channelStream();
    const { result, unmount } = renderHook(() => useAssistant({ stream }));
    act(() => {
      void result.current.send('hello');
    });
    expect(calls[0].info.signal?.aborted).toBe(false);
    unmount();
    expect(calls[0].info.signal?.aborted).toBe(true);
  });

  it('starts from initialItems', () => {
    const { stream } = channelStream();
    const initialItems: AssistantItem[] = [
      { role: 'user', text: 'earlier' },
      { role: 'assistant', parts: [text('reply')] },
    ];
    const { result } = renderHook(() => useAssistant({ stream, initialItems }));
    expect(result.current.items).toEqual(initialItems);
  });
});

// A chat as a user writes one: an input, a send button, the thread, tool parts as components by name,
// and approve buttons that feed the executed result back in.
function Chat({ stream, approve }: { stream: AssistantStream; approve: (approvalId: string) => Promise<AgentPart> }) {
  const { items, input, setInput, busy, send, applyPart } = useAssistant({ stream });
  return (
    <div>
      <ul>
        {items.map((item, i) =>
          item.role === 'user' ? (
            <li key={i}>you: {item.text}</li>
          ) : (
            <li key={i} data-testid={`reply-${i}`}>
              {item.parts.map((part, j) => {
                if (part.type === 'text') return <span key={j}>{part.text}</span>;
                if (part.type === 'tool' && part.name === 'notes.delete') {
                  return (
                    <span key={j} data-testid={`tool-${part.callId}`}>
                      {part.approvalId ? (
                        <button onClick={() => void approve(part.approvalId!).then(applyPart)}>approve</button>
                      ) : (
                        `deleted ${(part.result as { deleted: number }).deleted}`
                      )}
                    </span>
                  );
                }
                return null;
              })}
            </li>
          ),
        )}
      </ul>
      <input aria-label="message" value={input} onChange={(e) => setInput(e.target.value)} />
      <button disabled={busy} onClick={() => void send()}>
        send
      </button>
    </div>
  );
}

describe('useAssistant in a component', () => {
  it('renders a streamed turn and an approval round-trip (under StrictMode)', async () => {
    const { stream, channels } = channelStream();
    const approvals: string[] = [];
    const approve = async (approvalId: string): Promise<AgentPart> => {
      approvals.push(approvalId);
      return tool('c9', { name: 'notes.delete', input: { id: 2 }, result: { deleted: 2 } });
    };
    render(
      <StrictMode>
        <Chat stream={stream} approve={approve} />
      </StrictMode>,
    );

    fireEvent.change(screen.getByLabelText('message'), { target: { value: 'delete note 2' } });
    fireEvent.click(screen.getByText('send'));
    expect(screen.getByText('you: delete note 2')).toBeTruthy();
    expect((screen.getByText('send') as HTMLButtonElement).disabled).toBe(true);
    expect((screen.getByLabelText('message') as HTMLInputElement).value).toBe('');

    await act(async () => {
      channels[0].push(text('Asking first.'));
      channels[0].push(
        tool('c9', { name: 'notes.delete', input: { id: 2 }, result: { status: 'pending_approval', actionId: 'c9' }, approvalId: 'c9' }),
      );
      channels[0].end();
      await channels[0].pulled(3);
    });
    expect(screen.getByTestId('reply-1').textContent).toBe('Asking first.approve');
    expect((screen.getByText('send') as HTMLButtonElement).disabled).toBe(false);

    await act(async () => {
      fireEvent.click(screen.getByText('approve'));
    });
    expect(approvals).toEqual(['c9']);
    expect(screen.getByTestId('tool-c9').textContent).toBe('deleted 2');
    expect(screen.queryByText('approve')).toBeNull();
  });
});
