import { expect } from 'chai';
import { h } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { EMPTY_BRANDING, type Branding } from '../../core/branding/branding';
import { PortalLayout, renderPortalPage, type PortalFrame } from '../../web/portal/portal-layout';

/** The layout rendered whole, as every portal page was before its shell was kept (portal-layout.tsx). */
function renderedWhole(title: string, frame: PortalFrame, body: string): string {
  const props = { title, stylesheetHref: '/portal/assets/site.abc.css', themeHref: '/portal/theme.css?p=1&s=2', frame };
  return `<!doctype html>${renderToString(h(PortalLayout, { ...props, children: h('p', null, body) }))}`;
}

function renderedFromShell(title: string, frame: PortalFrame, body: string): string {
  const props = { title, stylesheetHref: '/portal/assets/site.abc.css', themeHref: '/portal/theme.css?p=1&s=2', frame };
  return renderPortalPage(props, h('p', null, body));
}

const collector = {
  name: 'Fairway Collections',
  email: 'help@fairway.example',
  phone: '+61 2 5550 1234',
  hours: 'Mon–Fri 9am–5pm',
};

const branded: Branding = {
  ...EMPTY_BRANDING,
  logoUrl: 'https://cdn.example.com/logo.png?a=1&b="2"',
  faviconUrl: 'https://cdn.example.com/favicon.ico',
  brandTagline: 'Fair <terms> & "plain" words',
  supportEmail: 'support@acme.example',
  supportPhone: '1300 000 000',
  statementFooter: 'ACME Lending Pty Ltd & co <ABN 1>',
};

describe('the portal layout kept as a shell around the title, the CSRF token and the body', () => {
  const frames: [string, PortalFrame][] = [
    ['before the second factor', { creditorName: null, branding: EMPTY_BRANDING, collector }],
    ['a verified visit', { creditorName: 'ACME <Lending> & "Co"', branding: branded, collector, csrfToken: 'tok_A-1' }],
    [
      'a verified visit, no branding',
      { creditorName: 'Plain Co', branding: EMPTY_BRANDING, collector, csrfToken: 'x' },
    ],
    ['a creditor named but no visit token', { creditorName: 'ACME', branding: branded, collector }],
  ];

  for (const [name, frame] of frames) {
    it(`renders the same text as the whole layout: ${name}`, () => {
      for (const title of ['Your account', 'Dispute <this> & "that"', '']) {
        const body = `balance & <b>due</b> "${title}"`;
        expect(renderedFromShell(title, frame, body)).to.equal(renderedWhole(title, frame, body));
      }
    });
  }

  it('puts a document title of its own in <title> only, the heading keeping the title', () => {
    for (const [, frame] of frames) {
      const props = {
        title: 'Make a payment',
        documentTitle: 'Error: Make a payment',
        stylesheetHref: '/portal/assets/site.abc.css',
        themeHref: '/portal/theme.css?p=1&s=2',
        frame,
      };
      const fromShell = renderPortalPage(props, h('p', null, 'x'));
      expect(fromShell).to.equal(
        `<!doctype html>${renderToString(h(PortalLayout, { ...props, children: h('p', null, 'x') }))}`,
      );
      expect(fromShell)
        .to.match(/<title>Error: Make a payment · /)
        .and.include('<h1>Make a payment</h1>');
    }
  });

  it('keeps a frame’s shell between visits: another title and another visit’s token land in their places', () => {
    const frame = frames[1]![1];
    const first = renderedFromShell('Your account', frame, 'one');
    const second = renderedFromShell('Make a payment', { ...frame, csrfToken: 'tok_B-2' }, 'two');
    expect(first).to.include('value="tok_A-1"').and.include('<h1>Your account</h1>').and.include('<p>one</p>');
    expect(second).to.include('value="tok_B-2"').and.include('<h1>Make a payment</h1>').and.include('<p>two</p>');
    expect(second).not.to.include('tok_A-1');
    expect(second).to.equal(renderedWhole('Make a payment', { ...frame, csrfToken: 'tok_B-2' }, 'two'));
  });

  it('shows a branding change at once: the shell is the frame’s, not the organisation’s', () => {
    const frame = frames[1]![1];
    const before = renderedFromShell('Your account', frame, 'x');
    const changed = { ...frame, branding: { ...branded, brandTagline: 'New words' } };
    const after = renderedFromShell('Your account', changed, 'x');
    expect(before).to.include('Fair &lt;terms> &amp; &quot;plain&quot; words');
    expect(after).to.include('New words').and.not.include('Fair &lt;terms>');
  });

  it('a stored text cannot forge a slot: a favicon URL and a name carrying the old fixed markers stay text', () => {
    const forged: PortalFrame = {
      creditorName: 'Evil \u0001title\u0001 Co',
      branding: {
        ...branded,
        faviconUrl: 'https://evil.example/f.ico?t=\u0001csrf\u0001',
        brandTagline: '\u0001body\u0001',
      },
      collector,
      csrfToken: 'tok_SECRET',
    };
    const html = renderedFromShell('Your account', forged, 'page body');
    expect(html).to.equal(renderedWhole('Your account', forged, 'page body'));
    expect(html).to.include('href="https://evil.example/f.ico?t=\u0001csrf\u0001"');
    expect(html.match(/tok_SECRET/g)).to.have.length(1);
    expect(html.match(/page body/g)).to.have.length(1);
  });
});
