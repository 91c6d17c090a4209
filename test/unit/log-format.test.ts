import { expect } from 'chai';
import { withoutRedaction } from '../../api/http/middleware/request-log';
import { chooseLogFormat, LOG_FORMATS } from '../../core/platform/logger';
import { captureLog } from '../support/log-capture';

describe('log format (LOG_FORMAT)', () => {
  it('auto is human-readable on a terminal and JSON lines anywhere else (a container, a pipe, a file)', () => {
    expect(chooseLogFormat('auto', true)).to.equal('pretty');
    expect(chooseLogFormat('auto', false)).to.equal('json');
  });

  it('json and pretty force their format whatever the output is', () => {
    for (const terminal of [true, false]) {
      expect(chooseLogFormat('json', terminal)).to.equal('json');
      expect(chooseLogFormat('pretty', terminal)).to.equal('pretty');
    }
  });

  it('accepts exactly auto, json and pretty', () => {
    expect(LOG_FORMATS).to.deep.equal(['auto', 'json', 'pretty']);
  });
});

describe('log redaction', () => {
  it('censors credentials and bodies on every line of the service logger', () => {
    const { logger, lines } = captureLog();
    logger.info(
      { secret: 'whsec_x', apiKey: 'ak_x', body: { email: 'a@b.c' }, req: { authorization: 'Bearer x' } },
      'm',
    );
    expect(lines[0]).to.include({ secret: '[redacted]', apiKey: '[redacted]', body: '[redacted]' });
    expect(lines[0]!.req).to.deep.equal({ authorization: '[redacted]' });
  });

  it('writes the request line without the pass, and leaves the logger it came from redacting', () => {
    const { logger, lines } = captureLog();
    withoutRedaction(logger).info({ requestId: 'req_1', status: 200 }, 'request');
    logger.info({ secret: 'whsec_x' }, 'after');
    expect(lines[0]).to.include({ requestId: 'req_1', status: 200, msg: 'request', name: 'test' });
    expect(lines[1]).to.include({ secret: '[redacted]' });
  });
});
