import { fetchParts } from '../../../src/chat/index.js';
import type { AssistantItem, AssistantStream, ContinuationStream } from '../../../src/chat/index.js';

let loading: Promise<AssistantItem[]> | undefined;

/**
 * The conversation so far, as the server's session store has it. Asked once per page load, however
 * often it is called (StrictMode runs effects twice): a browser's first thread request starts its
 * session, and two at once would start two, the later cookie winning.
 */
export function loadThread(): Promise<AssistantItem[]> {
  loading ??= fetch('/api/thread').then(async (response) => {
    if (!response.ok) throw new Error(`Loading the thread failed with HTTP ${response.status}: ${await response.text()}`);
    return ((await response.json()) as { items: AssistantItem[] }).items;
  });
  return loading;
}

// The server keeps the history in its session store, so only the prompt travels.
export const chatStream: AssistantStream = (prompt, _history, { signal }) => fetchParts('/api/chat', { json: { prompt }, signal });

/** The rest of the run once the user decided on a waiting tool call. */
export function decision(approvalId: string, approved: boolean): ContinuationStream {
  return (_history, { signal }) => fetchParts('/api/approve', { json: { approvalId, approved }, signal });
}
