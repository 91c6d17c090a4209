/**
 * A document's type is recognised by its first bytes, never by its name or the declared type: PDF (`%PDF-`), PNG
 * (its 8-byte signature) and JPEG (`FF D8 FF`). Anything else is refused.
 */
import type { BodyCheck } from './store';

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
 * Recognises a body's type from its first bytes as they reach the store (a `BodyCheck`, store.ts): a body of another
 * type is refused as soon as its first `LONGEST` bytes (or all of a shorter one) are in, before anything is kept.
 */
export class TypeSniffer implements BodyCheck {
  private head: Buffer | null = Buffer.alloc(0);
  type: DocumentContentType | undefined;

  chunk(bytes: Buffer): void {
    if (this.head === null) return;
    this.head = Buffer.concat([this.head, bytes.subarray(0, LONGEST)]);
    if (this.head.length >= LONGEST) this.decide();
  }

  end(): void {
    if (this.head !== null) this.decide();
  }

  private decide(): void {
    const head = this.head ?? Buffer.alloc(0);
    this.head = null;
    this.type = sniffContentType(head);
    if (!this.type) throw new UnsupportedDocumentTypeError();
  }
}
