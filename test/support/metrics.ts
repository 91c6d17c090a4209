/** Reading a process's Prometheus text in tests: fetch its internal /metrics port, find one sample by its labels. */

export async function scrape(port: number): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`);
  if (!res.ok) throw new Error(`GET /metrics on port ${port}: ${res.status}`);
  return res.text();
}

/** The value of the sample `name{labels…}` (these labels among its own), or undefined when there is none. */
export function sampleValue(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)/.exec(line);
    if (!match || match[1] !== name) continue;
    const own = new Map<string, string>();
    for (const [, key, value] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) own.set(key!, value!);
    if (Object.entries(labels).every(([key, value]) => own.get(key) === value)) return Number(match[3]);
  }
  return undefined;
}
