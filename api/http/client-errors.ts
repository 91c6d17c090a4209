/**
 * Requests Node's HTTP parser refuses before Koa sees them. Node answers a bare `400` with no body; for the one case
 * a client can cause by a value rather than by broken framing (a NUL character in a header value, which PostgreSQL
 * text could never hold either), answer our problem document naming the header, like any other invalid field.
 * Anything else keeps Node's own answer.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { ApiError } from '../../core/platform/errors';
import { newRequestId } from './middleware/request-id';
import { problemDocument, PROBLEM_CONTENT_TYPE } from './problem';

type ParserError = Error & { code?: string; rawPacket?: Buffer };

const NODE_ANSWERS: Record<string, string> = {
  HPE_HEADER_OVERFLOW: '431 Request Header Fields Too Large',
  HPE_CHUNK_EXTENSIONS_OVERFLOW: '413 Payload Too Large',
  ERR_HTTP_REQUEST_TIMEOUT: '408 Request Timeout',
};

export function answerUnparsableRequests(server: Server, errorBaseUrl: string): void {
  server.on('clientError', (err: ParserError, socket: Socket) => {
    if (socket.writable && socket.bytesWritten === 0) socket.write(answerFor(err, errorBaseUrl));
    socket.destroy();
  });
}

function answerFor(err: ParserError, errorBaseUrl: string): string {
  const header = headerWithNul(err.rawPacket);
  if (header === undefined) {
    return `HTTP/1.1 ${NODE_ANSWERS[err.code ?? ''] ?? '400 Bad Request'}\r\nConnection: close\r\n\r\n`;
  }
  const requestId = newRequestId();
  const error = new ApiError('invalid_request', `The ${header} header must not contain a NUL character.`, {
    errors: [{ path: `header.${header}`, message: 'must not contain a NUL character' }],
  });
  const body = JSON.stringify(problemDocument(error, requestId, errorBaseUrl));
  return (
    `HTTP/1.1 400 Bad Request\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}\r\nX-Request-Id: ${requestId}\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}

/** The name of the first header whose line holds a NUL character, as the client spelled it (a token: safe to echo). */
function headerWithNul(raw: Buffer | undefined): string | undefined {
  if (!raw) return undefined;
  const head = raw.toString('latin1').split('\r\n\r\n')[0] ?? '';
  const line = head
    .split('\r\n')
    .slice(1)
    .find((l) => l.includes('\u0000'));
  const name = line?.slice(0, line.indexOf(':'));
  return name && /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name) ? name : undefined;
}
