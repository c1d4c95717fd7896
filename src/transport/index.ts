// The public face of the part-stream transport: a server streams an `AgentPart` iterable as
// newline-delimited JSON (`sendParts` for node:http, `partsResponse` for a web Response) and the
// browser reads it back (`fetchParts`, `readParts`) as `useAssistant`'s `stream`.
export { sendParts } from './node.js';
export type { SendPartsOptions } from './node.js';
export { partsResponse } from './web.js';
export type { PartsResponseOptions } from './web.js';
export { readParts, fetchParts } from './read.js';
export type { ReadPartsOptions, FetchPartsInit } from './read.js';
export type { PartSource, PartStreamOptions, PartStreamOutcome } from './pump.js';
export { encodePartFrame, publicErrorInfo, PART_STREAM_CONTENT_TYPE, PART_STREAM_HEADERS } from './frames.js';
export type { PartFrame, RemoteErrorInfo } from './frames.js';
export {
  ClientDisconnectedError,
  PartStreamHttpError,
  PartStreamProtocolError,
  PartStreamTruncatedError,
  RemoteStreamError,
} from './errors.js';
