import { expect } from 'chai';
import { h } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { Layout, type LayoutProps, type PageUser } from '../../web/layout';
import { renderConsolePage } from '../../web/layout-shell';

type Frame = Omit<LayoutProps, 'children' | 'title'>;

/** The layout rendered whole, as every console page was before its shell was kept (layout-shell.tsx). */
function renderedWhole(title: string, frame: Frame, body: string): string {
  return `<!doctype html>${renderToString(h(Layout, { ...frame, title, children: h('p', null, body) }))}`;
}

function renderedFromShell(title: string, frame: Frame, body: string): string {
  return renderConsolePage({ ...frame, title }, h('p', null, body));
}

const admin: PageUser = {
  email: 'ops+<admin>@acme.example',
  role: 'admin',
  csrfToken: 'tok_A-1',
  organizationName: 'ACME <Lending> & "Co"',
};
const stylesheetHref = '/console/assets/site.abc.css';

describe('the console layout kept as a shell around the title, the CSRF token, the flash and the body', () => {
  const frames: [string, Frame][] = [
    ['signed out (the sign-in page)', { stylesheetHref, mode: 'production' }],
    ['an admin on the production host', { stylesheetHref, mode: 'production', user: admin }],
    ['a viewer on the sandbox host', { stylesheetHref, mode: 'sandbox', user: { ...admin, role: 'viewer' } }],
    ['with a flash message', { stylesheetHref, mode: 'production', user: admin, flash: 'Saved <it> & "done"' }],
    ['refreshing', { stylesheetHref, mode: 'sandbox', user: admin, refreshSeconds: 5 }],
    ['no organisation name', { stylesheetHref, mode: 'production', user: { ...admin, organizationName: '' } }],
  ];

  for (const [name, frame] of frames) {
    it(`renders the same text as the whole layout: ${name}`, () => {
      for (const title of ['Deliveries', 'Debt <ACCT-1> & "more"', '']) {
        const body = `rows & <b>links</b> "${title}"`;
        expect(renderedFromShell(title, frame, body)).to.equal(renderedWhole(title, frame, body));
      }
    });
  }

  it('keeps a frame’s shell between pages: another title, token and flash land in their places', () => {
    const frame: Frame = { stylesheetHref, mode: 'production', user: admin, flash: 'First' };
    const first = renderedFromShell('Deliveries', frame, 'one');
    const next: Frame = { ...frame, user: { ...admin, csrfToken: 'tok_B-2' }, flash: 'Second' };
    const second = renderedFromShell('Delivery', next, 'two');
    expect(first).to.include('value="tok_A-1"').and.include('<h1>Deliveries</h1>').and.include('>First</p>');
    expect(second).to.include('value="tok_B-2"').and.include('<h1>Delivery</h1>').and.include('>Second</p>');
    expect(second).not.to.include('tok_A-1');
    expect(second).not.to.include('First');
    expect(second).to.equal(renderedWhole('Delivery', next, 'two'));
  });

  it('shows a new role or organisation name at once: the shell is the frame’s', () => {
    const frame: Frame = { stylesheetHref, mode: 'production', user: admin };
    expect(renderedFromShell('Overview', frame, 'x')).to.include('/console/audit');
    const demoted = renderedFromShell('Overview', { ...frame, user: { ...admin, role: 'viewer' } }, 'x');
    expect(demoted).to.include('(viewer)');
    expect(demoted).not.to.include('/console/audit');
    const renamed = { ...frame, user: { ...admin, organizationName: 'New name' } };
    expect(renderedFromShell('Overview', renamed, 'x')).to.include('<span class="org">New name</span>');
  });

  it('a stored text cannot forge a slot: a name and an email carrying the old fixed markers stay text', () => {
    const forged: Frame = {
      stylesheetHref,
      mode: 'production',
      user: {
        email: 'evil\u0001csrf\u0001@example.com',
        role: 'admin',
        csrfToken: 'tok_SECRET',
        organizationName: 'Evil \u0001body\u0001 Co',
      },
    };
    const html = renderedFromShell('Overview', forged, 'page body');
    expect(html).to.equal(renderedWhole('Overview', forged, 'page body'));
    expect(html.match(/tok_SECRET/g)).to.have.length(2); // the two sign-out forms' fields
    expect(html.match(/page body/g)).to.have.length(1);
  });
});
