/**
 * Control characters in text a client or a visitor sends, refused wherever text comes in to be stored: the API's
 * bodies and queries (api/http/validation.ts) and the console's and the portal's forms (web/console/shared/http.ts).
 * NUL because PostgreSQL text cannot hold it; the other C0 controls (all but tab, line feed and carriage return), DEL
 * and the C1 controls because no field of ours means one, and they can smuggle structure into what is later built
 * from stored text (the portal layout's slots were cut on U+0001: docs/portal.md).
 */
// eslint-disable-next-line no-control-regex -- finding these characters is the point
const CONTROL = /[\u0001-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

/** What is wrong with `text` ("must not contain …"), or undefined when it holds no control character. */
export function controlCharacterProblem(text: string): string | undefined {
  if (text.includes('\u0000')) return 'must not contain a NUL character';
  const found = CONTROL.exec(text)?.[0];
  if (found === undefined) return undefined;
  const code = found.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
  return `must not contain a control character (U+${code})`;
}
