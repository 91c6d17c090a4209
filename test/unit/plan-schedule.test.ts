import { expect } from 'chai';
import {
  allocatePayment,
  buildPlanSchedule,
  dueDates,
  isInstalmentPaid,
  planProgress,
  scheduleBalance,
  schedulePlan,
  todayUtc,
  validatePlanRequest,
} from '../../core/lifecycle/plan-schedule';
import type { Instalment, PlanRequest } from '../../core/lifecycle/model';
import { addAmounts } from '../../core/debts/money';

const TODAY = '2026-01-15';

function request(overrides: Partial<PlanRequest> = {}): PlanRequest {
  return { instalmentCount: 3, frequency: 'Monthly', firstDueDate: '2026-01-31', ...overrides };
}

function amounts(instalments: Instalment[]): string[] {
  return instalments.map((i) => i.amount);
}

describe('plan schedule: amounts', () => {
  it('splits 1000.00 AUD into 333.33, 333.33 and 333.34', () => {
    const schedule = buildPlanSchedule('1000', 'AUD', request());
    expect(amounts(schedule)).to.deep.equal(['333.33', '333.33', '333.34']);
    expect(schedule.every((i) => i.paid === '0')).to.equal(true);
  });

  it('uses whole yen for JPY (0 minor units): 1000 / 3 = 333, 333, 334', () => {
    expect(amounts(buildPlanSchedule('1000', 'JPY', request()))).to.deep.equal(['333', '333', '334']);
  });

  it('uses fils for KWD (3 minor units): 10 / 3 = 3.333, 3.333, 3.334', () => {
    expect(amounts(buildPlanSchedule('10', 'KWD', request()))).to.deep.equal(['3.333', '3.333', '3.334']);
  });

  it('lets the last instalment absorb a remainder of many minor units, and always sums exactly', () => {
    const schedule = buildPlanSchedule('100.05', 'AUD', request({ instalmentCount: 7 }));
    expect(amounts(schedule)).to.deep.equal(['14.29', '14.29', '14.29', '14.29', '14.29', '14.29', '14.31']);
    for (const [total, currency, count] of [
      ['12750.75', 'AUD', 520],
      ['0.03', 'AUD', 3],
      ['999999999.999', 'KWD', 7],
      ['7', 'JPY', 7],
    ] as const) {
      const instalments = buildPlanSchedule(total, currency, request({ instalmentCount: count }));
      expect(instalments).to.have.length(count);
      expect(addAmounts(...amounts(instalments)), `${total} ${currency} / ${count}`).to.equal(total);
    }
  });

  it('makes one instalment of the whole balance when the count is 1', () => {
    expect(amounts(buildPlanSchedule('320.5', 'AUD', request({ instalmentCount: 1 })))).to.deep.equal(['320.5']);
  });
});

describe('plan schedule: due dates', () => {
  it('steps 7 days weekly and 14 fortnightly, across month and year ends', () => {
    expect(dueDates('2026-12-24', 'Weekly', 3)).to.deep.equal(['2026-12-24', '2026-12-31', '2027-01-07']);
    expect(dueDates('2026-12-24', 'Fortnightly', 3)).to.deep.equal(['2026-12-24', '2027-01-07', '2027-01-21']);
  });

  it('clamps a monthly date to the month’s last day and returns to the original day after', () => {
    expect(dueDates('2026-01-31', 'Monthly', 5)).to.deep.equal([
      '2026-01-31',
      '2026-02-28',
      '2026-03-31',
      '2026-04-30',
      '2026-05-31',
    ]);
  });

  it('knows leap years: 29 Feb in 2028, 28 Feb in 2100, 29 Feb in 2000', () => {
    expect(dueDates('2028-01-30', 'Monthly', 3)).to.deep.equal(['2028-01-30', '2028-02-29', '2028-03-30']);
    expect(dueDates('2099-12-31', 'Monthly', 3)).to.deep.equal(['2099-12-31', '2100-01-31', '2100-02-28']);
    expect(dueDates('2000-01-29', 'Monthly', 2)).to.deep.equal(['2000-01-29', '2000-02-29']);
    expect(dueDates('2028-02-29', 'Monthly', 13).slice(-2)).to.deep.equal(['2029-01-29', '2029-02-28']);
    expect(dueDates('2028-02-22', 'Weekly', 2)).to.deep.equal(['2028-02-22', '2028-02-29']);
  });

  it('runs a 10-year weekly plan of 520 instalments', () => {
    const dates = dueDates('2026-01-15', 'Weekly', 520);
    expect(dates).to.have.length(520);
    expect(dates.at(-1)).to.equal('2035-12-27'); // 519 weeks after the first
  });
});

describe('plan schedule: validation', () => {
  function refusal(overrides: Partial<PlanRequest>, outstanding = '1000', currency = 'AUD'): string | undefined {
    return validatePlanRequest(outstanding, currency, request(overrides), TODAY)?.detail;
  }

  it('accepts 1 to 520 instalments starting today up to 366 days ahead', () => {
    expect(refusal({ instalmentCount: 1, firstDueDate: TODAY })).to.equal(undefined);
    expect(refusal({ instalmentCount: 520, firstDueDate: '2027-01-16' })).to.equal(undefined);
  });

  it('refuses counts outside 1..520 or not whole', () => {
    for (const count of [0, -1, 521, 2.5, Number.NaN]) {
      expect(refusal({ instalmentCount: count }), String(count)).to.match(/instalmentCount must be a whole number/);
    }
  });

  it('refuses a first due date in the past, more than 366 days ahead, or not a calendar date', () => {
    expect(refusal({ firstDueDate: '2026-01-14' })).to.match(/not be before today \(2026-01-15, UTC\)/);
    expect(refusal({ firstDueDate: '2027-01-17' })).to.match(/at most 366 days/);
    for (const date of ['2026-02-30', '2026-1-31', '31/01/2026', '']) {
      expect(refusal({ firstDueDate: date }), date).to.match(/calendar date/);
    }
  });

  it('refuses an unknown frequency', () => {
    expect(refusal({ frequency: 'Daily' as never })).to.match(/frequency must be one of Weekly, Fortnightly, Monthly/);
  });

  it('refuses instalments smaller than one minor unit, per currency', () => {
    expect(refusal({ instalmentCount: 4 }, '0.03')).to.match(/less than 0\.01 AUD each/);
    expect(refusal({ instalmentCount: 3 }, '0.03')).to.equal(undefined);
    expect(refusal({ instalmentCount: 4 }, '3', 'JPY')).to.match(/less than 1 JPY each/);
    expect(refusal({ instalmentCount: 3 }, '0.003', 'KWD')).to.equal(undefined);
  });

  it('answers invalid_request through schedulePlan, or the schedule', () => {
    const refused = schedulePlan('1000', 'AUD', request({ instalmentCount: 0 }), TODAY);
    expect(refused.ok).to.equal(false);
    if (!refused.ok) expect(refused.refusal.code).to.equal('invalid_request');
    const planned = schedulePlan('1000', 'AUD', request(), TODAY);
    expect(planned.ok && amounts(planned.instalments)).to.deep.equal(['333.33', '333.33', '333.34']);
  });

  it('reads today in UTC', () => {
    expect(todayUtc(new Date('2026-03-01T23:59:59.999Z'))).to.equal('2026-03-01');
  });
});

describe('plan schedule: payments', () => {
  const schedule = buildPlanSchedule('1000', 'AUD', request());

  it('pays the oldest unpaid instalment first and overflows to later ones', () => {
    const { instalments, unallocated } = allocatePayment(schedule, '400');
    expect(instalments.map((i) => i.paid)).to.deep.equal(['333.33', '66.67', '0']);
    expect(unallocated).to.equal('0');
    expect(planProgress(instalments)).to.deep.equal({ instalmentsPaid: 1, nextDueDate: '2026-02-28' });
    expect(isInstalmentPaid(instalments, 0)).to.equal(true);
    expect(isInstalmentPaid(instalments, 1)).to.equal(false);
    expect(scheduleBalance(instalments)).to.equal('600');
  });

  it('completes a part-paid instalment before touching the next', () => {
    const first = allocatePayment(schedule, '100').instalments;
    const second = allocatePayment(first, '300').instalments;
    expect(second.map((i) => i.paid)).to.deep.equal(['333.33', '66.67', '0']);
  });

  it('ends with every instalment paid, no next due date, and reports what no instalment could take', () => {
    const paid = allocatePayment(schedule, '1000.5');
    expect(paid.unallocated).to.equal('0.5');
    expect(planProgress(paid.instalments)).to.deep.equal({ instalmentsPaid: 3, nextDueDate: null });
    expect(scheduleBalance(paid.instalments)).to.equal('0');
  });

  it('does not change the schedule it was given', () => {
    allocatePayment(schedule, '500');
    expect(schedule.map((i) => i.paid)).to.deep.equal(['0', '0', '0']);
  });
});
