/**
 * JSON.parse turns every number into a binary double before we see it, so `0.1000000000000000055` arrives as 0.1.
 * Money must be judged on what the client wrote, so this re-reads the raw body with every number kept as its
 * source text. (Node 20 has no JSON.parse source-text access; Node 22's `context.source` would replace this.)
 */

// A JSON string (escapes included) or a JSON number. Strings are matched whole, so digits inside them are skipped;
// outside strings JSON has only punctuation, whitespace and true/false/null, none of which holds a digit.
const TOKEN = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

/** Parses JSON text with every number turned into a string of its exact source text. */
export function parseJsonKeepingNumberText(text: string): unknown {
  return JSON.parse(text.replace(TOKEN, (token) => (token.startsWith('"') ? token : `"${token}"`)));
}

/**
 * The source text of the top-level `field` of a JSON object body when it is a number; undefined when the body is
 * not such an object, the field is absent, or it is not a number (a string is already exact).
 */
export function numberSourceText(rawJson: string, field: string, parsedValue: unknown): string | undefined {
  if (typeof parsedValue !== 'number' || rawJson === '') return undefined;
  try {
    const reread = parseJsonKeepingNumberText(rawJson);
    if (reread === null || typeof reread !== 'object' || Array.isArray(reread)) return undefined;
    const text = (reread as Record<string, unknown>)[field];
    return typeof text === 'string' ? text : undefined;
  } catch {
    return undefined;
  }
}
