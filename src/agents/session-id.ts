import { createHash } from 'node:crypto';

// A session id may be up to 200 bytes (the file store derives file names from it).
const MAX_ID_BYTES = 200;
const PLAIN_CALL_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The session of the sub-agent that call `callId` of session `parent` runs: `<parent>.<callId>`, so a
 * call run again (after a crash, or to apply an approval) finds the session it left, and a listing of
 * the store shows which conversation each sub-agent session belongs to. A call id that is not plain
 * (or too long) is replaced by its hash; an id that would pass 200 bytes (agents nested very deep)
 * becomes `sub-` and the hash of both.
 */
export function childSessionId(parent: string, callId: string): string {
  const call = PLAIN_CALL_ID.test(callId) ? callId : sha256(callId).slice(0, 32);
  const id = `${parent}.${call}`;
  return Buffer.byteLength(id, 'utf8') <= MAX_ID_BYTES ? id : `sub-${sha256(`${parent}\n${callId}`)}`;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
