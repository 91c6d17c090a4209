import { expect } from 'chai';
import { isDependencyUnavailable } from '../../core/platform/unavailable';

function withCode(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

describe('isDependencyUnavailable', () => {
  it('recognises a refused connection, also inside the AggregateError of a happy-eyeballs connect', () => {
    expect(isDependencyUnavailable(withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'))).to.equal(true);
    const aggregate = new AggregateError([withCode('refused', 'ECONNREFUSED')], 'connect failed');
    expect(isDependencyUnavailable(aggregate)).to.equal(true);
  });

  it('recognises a PostgreSQL shutting down or starting, and a cut connection', () => {
    expect(isDependencyUnavailable(withCode('terminating connection', '57P01'))).to.equal(true);
    expect(isDependencyUnavailable(withCode('the database system is starting up', '57P03'))).to.equal(true);
    expect(isDependencyUnavailable(withCode('connection failure', '08006'))).to.equal(true);
    expect(isDependencyUnavailable(new Error('Connection terminated unexpectedly'))).to.equal(true);
    expect(isDependencyUnavailable(new Error('Knex: Timeout acquiring a connection. The pool is full?'))).to.equal(
      true,
    );
  });

  it('recognises a Redis command timeout', () => {
    expect(isDependencyUnavailable(new Error('Command timed out'))).to.equal(true);
  });

  it('leaves bugs and data errors to the 500 path', () => {
    expect(isDependencyUnavailable(new TypeError('x is undefined'))).to.equal(false);
    expect(isDependencyUnavailable(withCode('duplicate key value', '23505'))).to.equal(false);
    expect(isDependencyUnavailable(withCode('division by zero', '22012'))).to.equal(false);
    expect(isDependencyUnavailable(undefined)).to.equal(false);
  });
});
