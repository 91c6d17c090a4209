/**
 * How many debtor notifications the mail dispatcher sends at once (core/notifications/mail-dispatcher.ts): two per
 * pooled connection, and with a relay's rate no more than a quarter second of it, since every send in flight past the
 * rate waits in nodemailer's pool ahead of another tenant's newly claimed notification.
 */
import { expect } from 'chai';
import { mailSendsInFlight } from '../../core/notifications/mail-dispatcher';

describe('mail sends in flight', () => {
  it('is two per connection when the relay has no rate', () => {
    expect(mailSendsInFlight({ maxConnections: 5, maxMessagesPerSecond: 0 })).to.equal(10);
    expect(mailSendsInFlight({ maxConnections: 1, maxMessagesPerSecond: 0 })).to.equal(2);
  });

  it('is a quarter second of the relay’s rate, rounded up, when that is fewer', () => {
    expect(mailSendsInFlight({ maxConnections: 5, maxMessagesPerSecond: 14 })).to.equal(4); // Amazon SES's default
    expect(mailSendsInFlight({ maxConnections: 5, maxMessagesPerSecond: 10 })).to.equal(3);
    expect(mailSendsInFlight({ maxConnections: 5, maxMessagesPerSecond: 1 })).to.equal(1);
  });

  it('is never more than two per connection, however fast the relay', () => {
    expect(mailSendsInFlight({ maxConnections: 5, maxMessagesPerSecond: 1000 })).to.equal(10);
  });
});
