/** The console's search (every role): `GET /console/search?q=…`, the header's box. */
import type Router from '@koa/router';
import { searchConsole } from '../../../core/staff/console-search';
import type { ConsoleContext } from '../shared/console-context';
import { queryValue } from '../shared/http';
import { signedIn } from '../shared/signed-in';
import { SearchBody } from './search-page';

export function searchRoutes(router: Router, c: ConsoleContext): void {
  router.get('/console/search', async (ctx) => {
    const session = await signedIn(c, ctx);
    if (!session) return;
    const query = (queryValue(ctx, 'q') ?? '').trim();
    const hits = await searchConsole(c.deps.db, session.organizationId, query);
    c.page(ctx, 'Search', <SearchBody query={query} hits={hits} />);
  });
}
