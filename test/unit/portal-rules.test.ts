/**
 * The debtor portal's pure rules: the organisation's plan bounds on top of the lifecycle's, the colours' readable
 * fallbacks, how second-factor answers are compared, and what each state of a debt offers.
 */
import { expect } from 'chai';
import { debtorActions } from '../../core/portal/debtor-actions';
import {
  DEFAULT_PLAN_RULES,
  lastFirstDueDate,
  maxInstalmentsFor,
  planRulesProblem,
  planRulesRefusal,
  type PlanRules,
} from '../../core/portal/plan-rules';
import { normalizeAnswer } from '../../core/portal/second-factor';
import {
  contrastRatio,
  DEFAULT_PRIMARY,
  DEFAULT_SECONDARY,
  portalTheme,
  TEXT_BACKGROUNDS,
} from '../../core/portal/theme';
import { showsTestCards } from '../../web/portal/test-card-hint';

const rules = (changes: Partial<PlanRules> = {}): PlanRules => ({
  ...DEFAULT_PLAN_RULES,
  frequencies: [...DEFAULT_PLAN_RULES.frequencies],
  ...changes,
});
const TODAY = '2026-11-26';

describe('portal plan rules', function () {
  it('lowers the most instalments so none falls below the minimum, never below one', function () {
    expect(maxInstalmentsFor(rules(), '1250.5', 'AUD')).to.equal(12);
    expect(maxInstalmentsFor(rules({ minInstalmentAmount: '500' }), '1250.5', 'AUD')).to.equal(2);
    expect(maxInstalmentsFor(rules({ minInstalmentAmount: '500' }), '90', 'AUD')).to.equal(1);
    expect(maxInstalmentsFor(rules({ minInstalmentAmount: '0', maxInstalments: 24 }), '10', 'AUD')).to.equal(24);
  });

  it('refuses a count, frequency or first date outside the rules, in plain words, and allows one inside', function () {
    const ok = { instalmentCount: 3, frequency: 'Monthly' as const, firstDueDate: TODAY };
    expect(planRulesRefusal(rules(), '1250.5', 'AUD', ok, TODAY)).to.equal(null);
    expect(planRulesRefusal(rules({ maxInstalments: 2 }), '1250.5', 'AUD', ok, TODAY)).to.contain('at most 2');
    // The minimum as the form writes money: with the currency's minor units.
    expect(planRulesRefusal(rules({ minInstalmentAmount: '500' }), '1250.5', 'AUD', ok, TODAY)).to.equal(
      'You can split this balance into at most 2 instalments (each at least 500.00 AUD).',
    );
    expect(planRulesRefusal(rules({ minInstalmentAmount: '500' }), '1250', 'JPY', ok, TODAY)).to.contain(
      'each at least 500 JPY',
    );
    expect(planRulesRefusal(rules({ frequencies: ['Weekly'] }), '1250.5', 'AUD', ok, TODAY)).to.contain('weekly');
    const late = { ...ok, firstDueDate: '2026-12-27' };
    expect(planRulesRefusal(rules(), '1250.5', 'AUD', late, TODAY)).to.equal(
      'The first payment must be on or before 2026-12-26.',
    );
    const past = { ...ok, firstDueDate: '2026-11-25' };
    expect(planRulesRefusal(rules(), '1250.5', 'AUD', past, TODAY)).to.contain('must not be before today');
    expect(lastFirstDueDate(rules({ firstDueWithinDays: 0 }), TODAY)).to.equal(TODAY);
  });

  it('says what is wrong with rules a client submits', function () {
    expect(planRulesProblem(rules())).to.equal(null);
    expect(planRulesProblem(rules({ maxInstalments: 0 }))).to.contain('from 1 to 520');
    expect(planRulesProblem(rules({ frequencies: [] }))).to.equal('Allow at least one frequency.');
    expect(planRulesProblem(rules({ minInstalmentAmount: 'ten' }))).to.contain('minimum instalment');
    expect(planRulesProblem(rules({ firstDueWithinDays: 400 }))).to.contain('0 to 366');
  });
});

describe('portal theme', function () {
  it('keeps readable brand colours and replaces unreadable ones with the defaults', function () {
    expect(portalTheme({ primaryColor: '#7A1F5C', secondaryColor: '#C25E00' })).to.deep.include({
      primary: '#7a1f5c',
      secondary: '#c25e00',
      primaryFellBack: false,
    });
    expect(portalTheme({ primaryColor: '#FFE600', secondaryColor: '#F5F5F5' })).to.deep.equal({
      primary: DEFAULT_PRIMARY,
      secondary: DEFAULT_SECONDARY,
      primaryFellBack: true,
      secondaryFellBack: true,
    });
    expect(portalTheme({ primaryColor: null, secondaryColor: null }).primaryFellBack).to.equal(false);
  });

  it('computes WCAG contrast ratios, and the defaults meet AA against white and the page’s wash', function () {
    expect(contrastRatio('#000000', '#ffffff')).to.be.closeTo(21, 0.01);
    expect(contrastRatio('#777777', '#ffffff')).to.be.closeTo(4.48, 0.01);
    for (const background of TEXT_BACKGROUNDS) {
      expect(contrastRatio(DEFAULT_PRIMARY, background), background).to.be.at.least(4.5);
    }
    expect(contrastRatio(DEFAULT_SECONDARY, '#ffffff')).to.be.at.least(3);
  });

  it('refuses a primary colour readable on white but not on the wash the footer’s links sit on', function () {
    // #757575 is 4.6:1 on white, 4.2:1 on #f3f5f8.
    expect(contrastRatio('#757575', '#ffffff')).to.be.at.least(4.5);
    expect(contrastRatio('#757575', '#f3f5f8')).to.be.below(4.5);
    expect(portalTheme({ primaryColor: '#757575', secondaryColor: null })).to.deep.include({
      primary: DEFAULT_PRIMARY,
      primaryFellBack: true,
    });
    // Just dark enough for both: kept.
    expect(portalTheme({ primaryColor: '#6b6b6b', secondaryColor: null })).to.deep.include({
      primary: '#6b6b6b',
      primaryFellBack: false,
    });
  });
});

describe('portal pay page: the test-card hint', function () {
  it('names the test cards only with the test-mode processor, on the sandbox or a host in development or tests', function () {
    expect(showsTestCards({ mode: 'sandbox', appEnv: 'production' }, 'test')).to.equal(true);
    expect(showsTestCards({ mode: 'production', appEnv: 'test' }, 'test')).to.equal(true);
    expect(showsTestCards({ mode: 'production', appEnv: 'development' }, 'test')).to.equal(true);
    expect(showsTestCards({ mode: 'production', appEnv: 'production' }, 'test')).to.equal(false);
    expect(showsTestCards({ mode: 'sandbox', appEnv: 'test' }, 'stripe')).to.equal(false);
    expect(showsTestCards({ mode: 'sandbox', appEnv: 'test' }, undefined)).to.equal(false);
  });
});

describe('portal second factor and actions', function () {
  it('compares answers without case, spaces or punctuation', function () {
    expect(normalizeAnswer(' ACCT-0001 ')).to.equal(normalizeAnswer('acct 0001'));
    expect(normalizeAnswer('O’Brien')).to.equal(normalizeAnswer('obrien'));
    expect(normalizeAnswer('Nguyễn')).to.equal('nguyễn');
  });

  it('offers nothing on a terminal debt and no payment or plan while disputed', function () {
    for (const status of ['Settled', 'WrittenOff', 'Closed'] as const) {
      expect(Object.values(debtorActions(status)).some(Boolean), status).to.equal(false);
    }
    expect(debtorActions('Disputed')).to.include({ pay: false, plan: false, dispute: false, talk: true });
    expect(debtorActions('PendingAssignment')).to.include({ accept: true, plan: false, pay: true });
    expect(debtorActions('InArrears')).to.include({ plan: true, pay: true, accept: false });
  });
});
