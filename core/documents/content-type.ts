/**
 * A document's type is recognised by its first bytes, never by its name or the declared type: PDF (`%PDF-`), PNG
 * (its 8-byte signature) and JPEG (`FF D8 FF`). Anything else is refused.
 */
import { Transform, type TransformCallback } from 'node:stream';

export const DOCUMENT_CONTENT_TYPES = ['application/pdf', 'image/png', 'image/jpeg'] as const;
export type DocumentContentType = (typeof DOCUMENT_CONTENT_TYPES)[number];

const SIGNATURES: { type: DocumentContentType; bytes: Buffer }[] = [
  { type: 'application/pdf', bytes: Buffer.from('%PDF-', 'latin1') },
  { type: 'image/png', bytes: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) },
  { type: 'image/jpeg', bytes: Buffer.from([0xff, 0xd8, 0xff]) },
];
const LONGEST = Math.max(...SIGNATURES.map((s) => s.bytes.length));

export function sniffContentType(head: Buffer): DocumentContentType | undefined {
  return SIGNATURES.find((s) => head.length >= s.bytes.length && head.subarray(0, s.bytes.length).equals(s.bytes))
    ?.type;
}

export class UnsupportedDocumentTypeError extends Error {
  constructor() {
    super('the file is not a PDF, PNG or JPEG');
    this.name = 'UnsupportedDocumentTypeError';
  }
}

/**
 * A pass-through that holds back the first bytes until it knows the type, then lets everything through; a stream of
 * another type fails with `UnsupportedDocumentTypeError` before a byte reaches the store.
 */
export class TypeSniffer extends Transform {
  private head: Buffer | null = Buffer.alloc(0);
  type: DocumentContentType | undefined;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (this.head === null) {
      callback(null, chunk);
      return;
    }
    this.head = Buffer.concat([this.head, chunk]);
    if (this.head.length < LONGEST) {
      callback();
      return;
    }
    this.release(callback);
  }

  override _flush(callback: TransformCallback): void {
    if (this.head === null) callback();
    else this.release(callback);
  }

  private release(callback: TransformCallback): void {
    const head = this.head ?? Buffer.alloc(0);
    this.type = sniffContentType(head);
    this.head = null;
    if (!this.type) callback(new UnsupportedDocumentTypeError());
    else callback(null, head);
  }
}
