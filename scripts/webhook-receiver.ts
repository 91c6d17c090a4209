/**
 * A local webhook receiver for the getting-started guide and the sandbox cookbook (docs/sandbox.md): it verifies each
 * delivery's `Service-Signature` exactly as docs/webhooks.md tells a client to (HMAC-SHA256 of `<t>.<raw body>` keyed
 * with the whole `whsec_…` secret, constant-time comparison, 300 s tolerance), prints one line per delivery and answers
 * 204, or 400 when the signature does not verify. Self-contained on purpose (Node built-ins only, nothing from this
 * repository), so it can be copied as the start of a real receiver.
 *
 *   WEBHOOK_SECRET=whsec_… npx tsx scripts/webhook-receiver.ts [--port 4000]
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';

const TOLERANCE_SECONDS = 300;

/** Why the signature does not verify, or null when it does. */
export function signatureProblem(header: string | undefined, rawBody: string, secret: string): string | null {
  const pairs = (header ?? '').split(',').map((part) => part.trim().split('='));
  const t = pairs.find(([k]) => k === 't')?.[1] ?? '';
  const signatures = pairs.filter(([k]) => k === 'v1').map(([, v]) => v ?? '');
  if (!/^\d+$/.test(t) || signatures.length === 0) return 'no t=…,v1=… Service-Signature header';
  if (Math.abs(Date.now() / 1000 - Number(t)) > TOLERANCE_SECONDS) return 'timestamp more than 300 s away';
  const expected = Buffer.from(createHmac('sha256', secret).update(`${t}.${rawBody}`).digest('hex'));
  const matches = signatures.some((s) => {
    const given = Buffer.from(s);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  return matches ? null : 'signature does not match the secret';
}

function main(): void {
  const secret = process.env.WEBHOOK_SECRET ?? '';
  const portArg = process.argv.indexOf('--port');
  const port = portArg > 0 ? Number(process.argv[portArg + 1]) : 4000;
  if (!secret.startsWith('whsec_') || !Number.isInteger(port)) {
    process.stderr.write('usage: WEBHOOK_SECRET=whsec_… npx tsx scripts/webhook-receiver.ts [--port 4000]\n');
    process.exit(64);
  }
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8'); // the raw bytes, before any JSON parsing
      const problem = signatureProblem(req.headers['service-signature'] as string | undefined, raw, secret);
      if (problem) {
        process.stdout.write(`REJECTED ${req.method} ${req.url}: ${problem}\n`);
        res.writeHead(400).end();
        return;
      }
      const event = JSON.parse(raw) as { id: string; type: string; data: { debt?: { id: string; status: string } } };
      const debt = event.data.debt ? ` debt ${event.data.debt.id} ${event.data.debt.status}` : '';
      process.stdout.write(`verified ${event.type} ${event.id}${debt}\n`);
      res.writeHead(204).end(); // answer first; real work (de-duplicating on event.id) comes after
    });
  });
  server.listen(port, '127.0.0.1', () => {
    process.stdout.write(`listening on http://127.0.0.1:${port}/ (any path)\n`);
  });
  process.on('SIGINT', () => server.close(() => process.exit(0)));
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}

if (require.main === module) main();
