/** The generated sample agreement is a well-formed PDF: recognised by its bytes, every xref offset exact. */
import { expect } from 'chai';
import { agreementPdf, sampleAgreementPdf } from '../../core/documents/agreement-pdf';
import { sniffContentType } from '../../core/documents/content-type';

describe('the sample agreement PDF', () => {
  it('is recognised as a PDF and its cross-reference table points at each object', () => {
    const pdf = sampleAgreementPdf({ externalAccountId: 'ACC-(1)', debtorName: 'Zoë \\ Smith' });
    expect(sniffContentType(pdf)).to.equal('application/pdf');
    const text = pdf.toString('latin1');
    const startxref = Number(/startxref\n(\d+)\n%%EOF\n$/.exec(text)?.[1]);
    expect(text.slice(startxref, startxref + 5)).to.equal('xref\n');
    const entries = [...text.slice(startxref).matchAll(/^(\d{10}) 00000 n $/gm)].map((m) => Number(m[1]));
    expect(entries).to.have.length(5);
    entries.forEach((offset, i) => expect(text.slice(offset, offset + 8)).to.equal(`${i + 1} 0 obj\n`));
    const length = Number(/\/Length (\d+) >>\nstream\n/.exec(text)?.[1]);
    const streamAt = text.indexOf('stream\n') + 'stream\n'.length;
    expect(text.slice(streamAt + length, streamAt + length + 10)).to.equal('\nendstream');
    expect(text).to.include('(Account: ACC-\\(1\\))');
    expect(pdf.length).to.be.below(2048);
  });

  it('is the same bytes for the same lines', () => {
    expect(agreementPdf(['a', 'b']).equals(agreementPdf(['a', 'b']))).to.equal(true);
  });
});
