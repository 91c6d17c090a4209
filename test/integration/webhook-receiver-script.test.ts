/**
 * The guides' local receiver (scripts/webhook-receiver.ts) verifies what the API signs: a delivery signed by the
 * webhooks worker's own code is `verified`, one with another secret, an old timestamp or no header is refused with 400.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { expect } from 'chai';
import { signatureHeader } from '../../core/webhooks/signature';
import { signatureProblem } from '../../scripts/webhook-receiver';
import { freePort } from '../support/ports';
import { killGroup } from '../support/processes';
import { waitFor } from '../support/wait';

const SECRET = 'whsec_cookbookSecret0123456789abcdef';
const body = JSON.stringify({ id: 'evt_1', type: 'test.ping', createdAt: '2026-11-23T09:00:00.000Z', data: {} });

describe('The guides’ webhook receiver script', function () {
  this.timeout(30_000);

  it('accepts the API’s signature and refuses another secret, a stale timestamp and a missing header', () => {
    expect(signatureProblem(signatureHeader(SECRET, body), body, SECRET)).to.equal(null);
    expect(signatureProblem(signatureHeader(`${SECRET}x`, body), body, SECRET)).to.contain('does not match');
    const stale = signatureHeader(SECRET, body, new Date(Date.now() - 301_000));
    expect(signatureProblem(stale, body, SECRET)).to.contain('300 s');
    expect(signatureProblem(undefined, body, SECRET)).to.contain('no t=');
    expect(signatureProblem(signatureHeader(SECRET, body), `${body} `, SECRET)).to.contain('does not match');
  });

  describe('as a process', () => {
    let proc: { child: ChildProcess } | undefined;
    let output = '';
    afterEach(() => killGroup(proc));

    it('prints a verified line and answers 204 to a signed delivery, 400 to a forged one', async () => {
      const port = await freePort();
      const child = spawn('npx', ['tsx', path.join('scripts', 'webhook-receiver.ts'), '--port', String(port)], {
        cwd: path.resolve(__dirname, '..', '..'),
        env: { ...process.env, WEBHOOK_SECRET: SECRET },
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      proc = { child };
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
      await waitFor(async () => output.includes('listening'), { what: 'the receiver to listen' });
      const send = (signature: string) =>
        fetch(`http://127.0.0.1:${port}/debt-events`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'service-signature': signature },
          body,
        });
      expect((await send(signatureHeader(SECRET, body))).status).to.equal(204);
      expect((await send(signatureHeader('whsec_other', body))).status).to.equal(400);
      await waitFor(async () => output.includes('REJECTED'), { what: 'the rejection line' });
      expect(output).to.contain('verified test.ping evt_1');
    });
  });
});
