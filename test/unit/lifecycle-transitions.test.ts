/** The workflow's update validators and core's state table must agree, or a trigger would be refused twice over. */
import { expect } from 'chai';
import { DEBT_STATUSES, nextStatus, type DebtTrigger } from '../../core/debts/debt-status';
import { GRACE_PERIOD_DAYS, type LifecycleChangeKind } from '../../core/lifecycle/model';
import { GRACE_PERIOD_MS } from '../../workflows/lifecycle/plan-timers';
import { isAllowed } from '../../workflows/lifecycle/transitions';

/** The state-table trigger each workflow change stands for. */
const TRIGGER_OF: Record<LifecycleChangeKind, DebtTrigger[]> = {
  accept: ['debtorAccepts'],
  dispute: ['debtorDisputes'],
  resolveDispute: ['disputeRejected', 'disputeUpheld'],
  agreePlan: ['planAgreed'],
  payment: ['paymentLeavesBalance', 'paymentClearsBalance'],
  default: ['instalmentMissed'],
  close: ['clientCloses'],
  writeOff: ['operatorWritesOff'],
};

describe('debt lifecycle transitions', () => {
  for (const [kind, triggers] of Object.entries(TRIGGER_OF) as [LifecycleChangeKind, DebtTrigger[]][]) {
    it(`${kind}: the workflow allows it exactly where core's table does`, () => {
      for (const status of DEBT_STATUSES) {
        const inCore = triggers.every((trigger) => nextStatus(status, trigger) !== null);
        expect(isAllowed(kind, status), `${kind} from ${status}`).to.equal(inCore);
      }
    });
  }

  it('the grace period is 7 days in both', () => {
    expect(GRACE_PERIOD_MS).to.equal(GRACE_PERIOD_DAYS * 86_400_000);
  });
});
