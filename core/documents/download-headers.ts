/**
 * How a document is downloaded, by the API's content route and the console's download link alike: as an attachment
 * under its uploaded name, never sniffed or shown inline, never cached.
 */
import type { DebtDocument } from './documents';

/**
 * `attachment` with an ASCII fallback name (anything but letters, digits, dot, dash, underscore and space replaced)
 * and the exact name in RFC 5987 `filename*`.
 */
export function attachmentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^A-Za-z0-9._ -]/g, '_').slice(0, 200) || 'document';
  const exact = encodeURIComponent(fileName).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${ascii}"; filename*=UTF-8''${exact}`;
}

/** The download's headers (its type is the document's recognised `contentType`, set by the caller's framework). */
export function documentDownloadHeaders(document: DebtDocument): Record<string, string> {
  return {
    'Content-Length': String(document.size),
    'Content-Disposition': attachmentDisposition(document.fileName),
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': "default-src 'none'; sandbox",
    'Cache-Control': 'private, no-store',
  };
}
