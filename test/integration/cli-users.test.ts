import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { createOrganization } from '../../core/access/organizations';
import { createMailer, type Mailer } from '../../core/notifications/mail';
import { consumeSignInLink } from '../../core/staff/magic-links';
import { runCommand, type CliIo } from '../../scripts/cli/commands';
import { startMailSink, type MailSink } from '../support/mail-sink';
import { testDb } from '../support/resources';

describe('Operator CLI: console users', () => {
  let sink: MailSink;
  let mailer: Mailer;
  before(async () => {
    sink = await startMailSink();
    mailer = createMailer({ smtpUrl: sink.smtpUrl, from: 'Client console <console@example.test>' });
  });
  after(async () => {
    mailer.close();
    await sink.stop();
  });

  async function cli(args: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const io: CliIo = {
      db: testDb(),
      mode: 'production',
      out: (l) => out.push(l),
      err: (l) => err.push(l),
      secretBox: () => {
        throw new Error('these commands need no secret box');
      },
      temporal: () => {
        throw new Error('these commands need no Temporal client');
      },
      mail: { mailer: () => mailer, consoleBaseUrl: 'http://localhost:3000' },
    };
    const code = await runCommand(args, io);
    return { code, out: out.join('\n'), err: err.join('\n') };
  }

  it('invites a user: prints nothing secret, and the link that arrives by email signs them in', async () => {
    const organization = await createOrganization(testDb(), { name: 'CLI Console Org', mode: 'production' });
    const email = `invitee-${randomUUID()}@example.test`;
    const invited = await cli(['user', 'invite', '--org', organization.id, '--email', email, '--role', 'developer']);
    expect(invited.code, invited.err).to.equal(0);
    expect(invited.out).to.match(/invited .* as developer/);
    expect(invited.out).not.to.match(/token|http/i);

    const mail = await sink.nthMailTo(email, 1);
    expect(mail.subject).to.equal("You are invited to CLI Console Org's live client console");
    expect(mail.text).to.contain("developer role in CLI Console Org's live client console");
    const token = /\/console\/sign-in\/link\?token=([A-Za-z0-9_-]{43})/.exec(mail.text)?.[1];
    expect(token, mail.text).to.be.a('string');
    expect(await consumeSignInLink({ db: testDb() }, token!)).to.deep.include({
      organizationId: organization.id,
      role: 'developer',
    });

    const listed = await cli(['user', 'list', '--org', organization.id]);
    expect(listed.out).to.contain(email).and.to.contain('developer');
    const again = await cli(['user', 'invite', '--org', organization.id, '--email', email, '--role', 'viewer']);
    expect(again).to.include({ code: 1 });
    expect(again.err).to.contain('already has a console account');
  });

  it('refuses an unknown role, a bad email or an unknown organisation with a usage error', async () => {
    const org = randomUUID();
    const bad = [
      ['user', 'invite', '--org', org, '--email', 'a@b.test', '--role', 'root'],
      ['user', 'invite', '--org', org, '--email', 'not-an-email', '--role', 'viewer'],
      ['user', 'invite', '--org', org, '--email', 'a@b.test', '--role', 'viewer'],
    ];
    for (const args of bad) expect((await cli(args)).code, args.join(' ')).to.equal(64);
  });
});
