/**
 * The portal's colours as a same-origin stylesheet whose URL names them (the pages allow no inline style). The colours
 * are checked again here, so a hand-made URL cannot bring in an unreadable one, and the answer never changes for a
 * URL: it is cached for a year.
 */
import type Router from '@koa/router';
import { portalTheme } from '../../core/portal/theme';

export function themeRoute(router: Router): void {
  router.get('/portal/theme.css', (ctx) => {
    const hex = (name: string) => {
      const value = ctx.query[name];
      return typeof value === 'string' && /^[0-9a-f]{6}$/.test(value) ? `#${value}` : null;
    };
    const theme = portalTheme({ primaryColor: hex('p'), secondaryColor: hex('s') });
    ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    ctx.type = 'text/css; charset=utf-8';
    ctx.body = `:root{--brand:${theme.primary};--brand-accent:${theme.secondary}}\n`;
  });
}
