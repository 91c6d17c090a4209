import { expect } from 'chai';
import {
  DEBT_STATUSES,
  NON_TERMINAL_STATUSES,
  TERMINAL_STATUSES,
  TRANSITIONS,
  canChangePrincipal,
  isTerminal,
  nextStatus,
  type DebtTrigger,
} from '../../core/debts/debt-status';

describe('debt status machine (DECISIONS.md §3)', () => {
  it('has the eight states, three of them terminal', () => {
    expect(DEBT_STATUSES).to.have.length(8);
    expect([...TERMINAL_STATUSES].sort()).to.deep.equal(['Closed', 'Settled', 'WrittenOff']);
    expect(NON_TERMINAL_STATUSES).to.deep.equal(['PendingAssignment', 'Accepted', 'Active', 'InArrears', 'Disputed']);
    expect(isTerminal('Settled')).to.equal(true);
    expect(isTerminal('Disputed')).to.equal(false);
  });

  it('lets the client close from every non-terminal state and from no terminal one', () => {
    for (const status of NON_TERMINAL_STATUSES) expect(nextStatus(status, 'clientCloses')).to.equal('Closed');
    for (const status of TERMINAL_STATUSES) expect(nextStatus(status, 'clientCloses')).to.equal(null);
  });

  it('allows the principal to change only while PendingAssignment', () => {
    expect(DEBT_STATUSES.filter(canChangePrincipal)).to.deep.equal(['PendingAssignment']);
  });

  it('follows the transition table', () => {
    const cases: [DebtTrigger, string, string | null][] = [
      ['debtorAccepts', 'PendingAssignment', 'Accepted'],
      ['debtorAccepts', 'Accepted', null],
      ['debtorDisputes', 'Active', 'Disputed'],
      ['debtorDisputes', 'Disputed', null],
      ['disputeRejected', 'Disputed', 'PendingAssignment'],
      ['disputeUpheld', 'Disputed', 'WrittenOff'],
      ['planAgreed', 'Accepted', 'Active'],
      ['planAgreed', 'InArrears', 'Active'],
      ['planAgreed', 'PendingAssignment', null],
      ['instalmentMissed', 'Active', 'InArrears'],
      ['instalmentMissed', 'Accepted', null],
      ['paymentLeavesBalance', 'InArrears', 'InArrears'],
      ['paymentClearsBalance', 'Disputed', 'Settled'],
      ['paymentClearsBalance', 'Closed', null],
    ];
    for (const [trigger, from, to] of cases) {
      expect(nextStatus(from as never, trigger), `${trigger} from ${from}`).to.equal(to);
    }
  });

  it('names the events each move emits, debt.updated after the specific one', () => {
    expect(TRANSITIONS.paymentClearsBalance.events).to.deep.equal(['payment.received', 'debt.updated']);
    expect(TRANSITIONS.clientCloses.events).to.deep.equal(['debt.updated']);
    expect(TRANSITIONS.planAgreed.events).to.deep.equal(['plan.activated']);
    expect(TRANSITIONS.instalmentMissed.events).to.deep.equal(['plan.defaulted']);
  });

  it('never leaves a terminal state', () => {
    for (const trigger of Object.keys(TRANSITIONS) as DebtTrigger[]) {
      for (const status of TERMINAL_STATUSES) expect(nextStatus(status, trigger), `${trigger}`).to.equal(null);
    }
  });
});
