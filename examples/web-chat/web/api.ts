import { fetchParts } from 'indusagi/chat';
import type { AssistantItem, AssistantStream, ContinuationStream } from 'indusagi/chat';

/** The conversation as the server has it: the thread, which of its replies were stopped, and what the session store could not read. */
export type Thread = { items: AssistantItem[]; stopped: number[]; problems: string[] };

let loading: Promise<Thread> | undefined;

/**
 * The conversation so far, as the server's session store has it. Asked once per page load, however
 * often it is called (StrictMode runs effects twice): a browser's first thread request starts its
 * session, and two at once would start two, the later cookie winning.
 */
export function loadThread(): Promise<Thread> {
  loading ??= fetch('/api/thread').then(async (response) => {
    if (!response.ok) throw new Error(`Loading the thread failed with HTTP ${response.status}: ${await response.text()}`);
    return (await response.json()) as Thread;
  });
  return loading;
}

// The server keeps the history in its session store, so only the prompt travels.
export const chatStream: AssistantStream = (prompt, _history, { signal }) => fetchParts('/api/chat', { json: { prompt }, signal });

/** The rest of the run once the user decided on a waiting tool call. */
export function decision(approvalId: string, approved: boolean): ContinuationStream {
  return (_history, { signal }) => fetchParts('/api/approve', { json: { approvalId, approved }, signal });
}
