/**
 * Reads a `multipart/form-data` request with one file part and a few short text fields (busboy, streaming): the file
 * is handed to `consume` as a stream while it arrives, so the API never holds the whole body. A field may come after
 * the file and refuse it once it is all received: `consume` also gets `formChecked`, which settles when the whole
 * form is read, and keeps nothing if it is rejected. A refusal is answered only once `consume` has settled, so
 * nothing it stored outlives the answer. When the answer is a refusal sent before the body was read to its end (too
 * large, wrong type, malformed), it carries `Connection: close`: the rest of the body is never read, the connection
 * ends with the answer.
 */
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import type { Context } from 'koa';
import { ApiError, errors } from './errors';

/** What the reader uses of a request: the API's routes and the console's pages both pass theirs. */
export type MultipartRequest = Pick<Context, 'is' | 'get' | 'req'>;

const MULTIPART = 'multipart/form-data';
const CLOSE = { Connection: 'close' };

export interface MultipartOptions<T> {
  /** The name of the one file part. */
  fileField: string;
  /** The text fields accepted besides it; each is checked by `checkField` as it arrives (throw to refuse). */
  fields: readonly string[];
  checkField: (name: string, value: string) => void;
  maxFieldBytes: number;
  /** A declared `Content-Length` above this is refused before a byte is read. */
  maxBodyBytes: number;
  /**
   * Streams the file to where it goes; its rejection (e.g. 413, 415) is the request's answer. `formChecked` is
   * fulfilled once every part after the file is read and accepted, rejected (with the refusal) otherwise: keep what
   * was received only once it is fulfilled.
   */
  consume: (file: Readable, formChecked: Promise<void>, info: { fileName: string; mimeType: string }) => Promise<T>;
  /** What is uploaded, for the refusals' words; `a document` by default. */
  what?: string;
  /** The refusal of a declared `Content-Length` above `maxBodyBytes`; the documents' 10 MiB by default. */
  tooLargeDetail?: string;
}

export interface MultipartUpload<T> {
  fileName: string;
  fields: Record<string, string>;
  consumed: T;
}

/** Marks a refusal as sent with the body partly unread. */
function closing(err: unknown): Error {
  if (!(err instanceof ApiError)) return err instanceof Error ? err : new Error(String(err));
  return new ApiError(err.code, err.message, { ...err.extra, headers: { ...err.extra.headers, ...CLOSE } });
}

export async function readMultipartUpload<T>(
  ctx: MultipartRequest,
  options: MultipartOptions<T>,
): Promise<MultipartUpload<T>> {
  if (ctx.is(MULTIPART) !== MULTIPART) {
    throw closing(
      new ApiError(
        'unsupported_media_type',
        `Upload ${options.what ?? 'a document'} as ${MULTIPART} with a "${options.fileField}" file part; this request was sent as ${ctx.get('content-type').slice(0, 100) || 'no content type'}.`,
      ),
    );
  }
  if (Number(ctx.get('content-length') || 0) > options.maxBodyBytes) {
    throw closing(new ApiError('payload_too_large', options.tooLargeDetail ?? 'A document is at most 10 MiB.'));
  }
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: ctx.req.headers,
      defParamCharset: 'utf8', // file names as browsers and fetch send them
      limits: {
        files: 1,
        fields: options.fields.length,
        parts: options.fields.length + 2, // busboy signals on reaching the limit: the one part too many
        fieldSize: options.maxFieldBytes,
        fieldNameSize: 100,
      },
    });
  } catch {
    throw closing(errors.invalidRequest(`The ${MULTIPART} Content-Type needs a boundary parameter.`));
  }
  const req = ctx.req;
  return new Promise<MultipartUpload<T>>((resolve, reject) => {
    let settled = false;
    let consuming: Promise<T> | undefined;
    let file: Readable | undefined;
    let fileName = '';
    const fields: Record<string, string> = {};
    let formDone!: { accept: () => void; refuse: (err: unknown) => void };
    const formChecked = new Promise<void>((accept, refuse) => (formDone = { accept, refuse }));
    formChecked.catch(() => undefined); // awaited by the consumer only once the file is in
    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      req.unpipe(parser);
      req.pause();
      // A file still streaming ends in error, so the store drops its temporary object instead of waiting forever;
      // one already received is dropped by the consumer when the form is refused.
      file?.destroy(new Error('upload abandoned'));
      formDone.refuse(err);
      const answer = () => reject(closing(err));
      if (consuming) consuming.then(answer, answer);
      else answer();
    };
    const refuse = (detail: string, path = 'body') => fail(errors.invalidRequest(detail, [{ path, message: detail }]));

    parser.on('file', (name, stream, info) => {
      if (name !== options.fileField || consuming) {
        stream.resume();
        refuse(`Send exactly one file, as the "${options.fileField}" part; "${name}" is not expected.`, `body.${name}`);
        return;
      }
      fileName = info.filename ?? '';
      file = stream;
      consuming = options.consume(stream, formChecked, { fileName, mimeType: info.mimeType });
      consuming.catch(fail);
    });
    parser.on('field', (name, value, info) => {
      if (settled) return;
      if (name === options.fileField) {
        refuse(`"${name}" must be a file part (with a filename), not a text field.`, `body.${name}`);
      } else if (!options.fields.includes(name)) {
        refuse(`"${name}" is not a recognised field.`, `body.${name}`);
      } else if (info.valueTruncated || name in fields) {
        refuse(`"${name}" is sent once, at most ${options.maxFieldBytes} bytes.`, `body.${name}`);
      } else {
        try {
          options.checkField(name, value);
          fields[name] = value;
        } catch (err) {
          fail(err);
        }
      }
    });
    parser.on('partsLimit', () =>
      refuse(`Too many parts: one "${options.fileField}" file and ${options.fields.join(', ')}.`),
    );
    parser.on('filesLimit', () => refuse(`Send exactly one file, as the "${options.fileField}" part.`));
    parser.on('fieldsLimit', () => refuse(`Too many fields: at most ${options.fields.join(', ')}.`));
    parser.on('error', () => refuse(`The ${MULTIPART} body is malformed.`));
    parser.on('close', () => {
      if (settled) return;
      if (!consuming) {
        refuse(`A "${options.fileField}" file part is required.`, `body.${options.fileField}`);
        return;
      }
      formDone.accept();
      consuming.then((consumed) => {
        if (settled) return;
        settled = true;
        resolve({ fileName, fields, consumed });
      }, fail);
    });
    req.on('aborted', () => fail(errors.invalidRequest('The request body ended early.')));
    req.pipe(parser);
  });
}
