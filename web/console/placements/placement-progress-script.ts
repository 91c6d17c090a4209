/**
 * The browser side of a running placement's page: every 2 s it reads the placement's progress JSON and moves the
 * progress bar and its words; once the placement has finished it reloads the page, which then shows the outcome and
 * the errors. Served from this origin as a file of its own (`/console/assets/placements/progress.<hash>.js`), never
 * inline, so the page's CSP allows only `script-src 'self'`. Without JavaScript the page refreshes itself instead (a
 * `<meta http-equiv="refresh">` inside `<noscript>`). Plain ES5 in a string: it is not compiled as server code.
 */
import { createHash } from 'node:crypto';
import type { Middleware } from 'koa';

export const PLACEMENT_PROGRESS_SCRIPT = `(function () {
  'use strict';
  var section = document.getElementById('placement-progress');
  if (!section || !window.fetch) return;
  var url = section.getAttribute('data-progress-url');
  var bar = document.getElementById('placement-progress-bar');
  function text(id, value) {
    var el = document.getElementById(id);
    if (!el) return;
    el.textContent = value || '';
    el.hidden = !value;
  }
  function poll() {
    fetch(url, { headers: { Accept: 'application/json' }, credentials: 'same-origin' })
      .then(function (response) {
        if (!response.ok) throw new Error(String(response.status));
        return response.json();
      })
      .then(function (p) {
        if (p.finished) {
          window.location.reload();
          return;
        }
        if (p.percent === null) {
          bar.removeAttribute('value');
        } else {
          bar.max = p.total;
          bar.value = p.done;
        }
        bar.textContent = p.percent === null ? '' : p.percent + '%';
        text('placement-status', p.status);
        text('placement-summary', p.summary);
        text('placement-rate', p.rate);
        text('placement-time-left', p.timeLeft);
        if (p.total > 0) text('placement-total', String(p.total));
        text('placement-imported', String(p.imported));
        text('placement-skipped', String(p.skipped));
        text('placement-failed', String(p.failed));
        window.setTimeout(poll, 2000);
      })
      .catch(function () {
        window.setTimeout(poll, 2000);
      });
  }
  window.setTimeout(poll, 2000);
})();
`;

export interface PlacementProgressAsset {
  /** The script's URL, named by its content hash so it may be cached for a year. */
  href: string;
  serve: Middleware;
}

export function loadPlacementProgressAsset(): PlacementProgressAsset {
  const body = Buffer.from(PLACEMENT_PROGRESS_SCRIPT, 'utf8');
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  const href = `/console/assets/placements/progress.${hash}.js`;
  return {
    href,
    serve: async (ctx) => {
      ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.type = 'text/javascript; charset=utf-8';
      ctx.body = body;
    },
  };
}
