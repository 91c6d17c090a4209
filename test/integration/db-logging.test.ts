/** The pool's own messages (core/platform/db.ts): knex's warnings go through the process's logger. */
import { expect } from 'chai';
import { createDb } from '../../core/platform/db';
import { captureLog } from '../support/log-capture';
import { testEnv } from '../support/env';

describe("knex's own warnings", () => {
  it('are lines of the JSON log, not plain text on stdout, when the pool is given a logger', async () => {
    const { logger, lines } = captureLog();
    const printed: unknown[] = [];
    const originalConsoleLog = console.log;
    console.log = (...args: unknown[]) => void printed.push(...args);
    try {
      const db = createDb(testEnv.databaseUrl, { pool: { min: 0, max: 1 }, logger });
      const destroying = db.destroy();
      // A query on a pool being destroyed: knex warns "Acquire connection error" as it rejects it.
      const refused: unknown = await db.raw('select 1').then(
        () => undefined,
        (err: unknown) => err,
      );
      await destroying;
      expect(refused).to.be.instanceOf(Error);
    } finally {
      console.log = originalConsoleLog;
    }
    expect(printed).to.deep.equal([]);
    const warning = lines.find((line) => String(line.msg).startsWith('Acquire connection error'));
    expect(warning).to.include({ component: 'knex', level: 40, name: 'test' });
  });
});
