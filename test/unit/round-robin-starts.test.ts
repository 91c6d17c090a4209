/**
 * The consumers start a batch's workflows in rounds across organisations (core/temporal/fairness.ts): every
 * organisation's first before anyone's second, each organisation's own order kept, nothing lost or doubled.
 */
import { expect } from 'chai';
import { roundRobinByOrganization } from '../../core/temporal/fairness';

const item = (organizationId: string, n: number) => ({ organizationId, id: `${organizationId}${n}` });

describe('starts in rounds across organisations', () => {
  it('puts a tenant’s one start in the first round, however many another tenant has before it', () => {
    const batch = [...Array.from({ length: 500 }, (_, i) => item('a', i)), item('b', 0), item('c', 0), item('c', 1)];
    const ordered = roundRobinByOrganization(batch);
    expect(ordered.slice(0, 4).map((i) => i.id)).to.deep.equal(['a0', 'b0', 'c0', 'a1']);
    expect(ordered[4]!.id).to.equal('c1');
    expect(ordered.filter((i) => i.organizationId === 'a').map((i) => i.id)).to.deep.equal(
      Array.from({ length: 500 }, (_, i) => `a${i}`),
    );
    expect([...ordered].sort((x, y) => x.id.localeCompare(y.id))).to.deep.equal(
      [...batch].sort((x, y) => x.id.localeCompare(y.id)),
    );
  });

  it('leaves a batch of one organisation, and an empty one, as they are', () => {
    const batch = [item('a', 0), item('a', 1), item('a', 2)];
    expect(roundRobinByOrganization(batch)).to.deep.equal(batch);
    expect(roundRobinByOrganization([])).to.deep.equal([]);
  });
});
