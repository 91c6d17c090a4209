/**
 * One request over HTTP/2, as browsers send it to the proxy (ALPN h2): undici's fetch speaks HTTP/1.1 only, so the
 * proxy's HTTP/2 side (its upload window, its translation to the apps' HTTP/1.1) needs a client of its own.
 */
import { connect, constants } from 'node:http2';

export interface Http2Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** The protocol TLS agreed by ALPN: `h2` is what a browser needs to speak HTTP/2 (Node's client goes on without). */
  alpnProtocol: string | undefined;
}

export async function http2Request(
  url: string,
  options: { ca: string; method?: string; headers?: Record<string, string>; body?: Buffer },
): Promise<Http2Answer> {
  const target = new URL(url);
  const session = connect(target.origin, { ca: options.ca });
  try {
    return await new Promise<Http2Answer>((resolve, reject) => {
      session.once('error', reject);
      const stream = session.request({
        [constants.HTTP2_HEADER_METHOD]: options.method ?? 'GET',
        [constants.HTTP2_HEADER_PATH]: `${target.pathname}${target.search}`,
        ...options.headers,
      });
      const chunks: Buffer[] = [];
      let headers: Http2Answer['headers'] = {};
      stream.once('response', (received) => (headers = received));
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.once('end', () =>
        resolve({
          status: Number(headers[constants.HTTP2_HEADER_STATUS]),
          headers,
          body: Buffer.concat(chunks),
          alpnProtocol: session.alpnProtocol,
        }),
      );
      stream.once('error', reject);
      stream.end(options.body);
    });
  } finally {
    session.close();
  }
}
