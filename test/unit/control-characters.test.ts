/** Which characters no stored text may hold (core/platform/control-characters.ts). */
import { expect } from 'chai';
import { controlCharacterProblem } from '../../core/platform/control-characters';

describe('controlCharacterProblem', () => {
  it('allows text, tab, line feed and carriage return, and every printable character', () => {
    for (const text of [
      '',
      'Acme Lending',
      'line one\nline two\r\n\tindented',
      'Ünïcödé – “quotes” €',
      '\u00a0\u2028',
    ]) {
      expect(controlCharacterProblem(text), JSON.stringify(text)).to.equal(undefined);
    }
  });

  it('names NUL apart (PostgreSQL cannot store it) and every other C0 control, DEL and C1 control by its code point', () => {
    expect(controlCharacterProblem('a\u0000b')).to.equal('must not contain a NUL character');
    const controls = [
      ...Array.from({ length: 0x20 }, (_, i) => i).filter((i) => i !== 0 && ![0x09, 0x0a, 0x0d].includes(i)),
      0x7f,
      ...Array.from({ length: 0x20 }, (_, i) => 0x80 + i),
    ];
    for (const code of controls) {
      const hex = code.toString(16).toUpperCase().padStart(4, '0');
      expect(controlCharacterProblem(`ok${String.fromCharCode(code)}`), hex).to.equal(
        `must not contain a control character (U+${hex})`,
      );
    }
  });
});
