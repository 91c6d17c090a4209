import { expect } from 'chai';
import { chooseLogFormat, LOG_FORMATS } from '../../core/platform/logger';

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
