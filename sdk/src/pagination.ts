/** Cursor iteration over every list (/docs/pagination): `for await (const debt of list(api, '/v1/debts')) …`. */
import type { ApiClient } from './client';
import type { paths } from './generated/openapi';
import { unwrap } from './problems';

interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

type ListOperation<T> = {
  parameters: { query?: Record<string, unknown> };
  responses: { 200: { content: { 'application/json': Page<T> } } };
};

/** The paths whose GET answers a page (`data`, `nextCursor`). */
export type ListPath = {
  [P in keyof paths]: paths[P] extends { get: ListOperation<unknown> } ? P : never;
}[keyof paths];

/** The item a list path pages through, e.g. `components['schemas']['Debt']` for `/v1/debts`. */
export type ListItem<P extends ListPath> = paths[P] extends { get: ListOperation<infer T> } ? T : never;

/** The list's query (filters, `limit`) without `cursor`, which the iteration sets. */
export type ListQuery<P extends ListPath> = paths[P] extends { get: { parameters: { query?: infer Q } } }
  ? Omit<NonNullable<Q>, 'cursor'>
  : never;

/** One GET of `path` with `query`, as the untyped core of `pages` (each list path's types are checked above). */
type GetPage = (
  path: string,
  init: { params: { query: Record<string, unknown> } },
) => Promise<{
  data?: unknown;
  error?: unknown;
  response: Response;
}>;

/** Every page of the list, following `nextCursor` to the end; problems throw ApiProblemError. */
export async function* pages<P extends ListPath>(
  api: ApiClient,
  path: P,
  query?: ListQuery<P>,
): AsyncGenerator<Page<ListItem<P>>> {
  const get = api.GET.bind(api) as unknown as GetPage;
  let cursor: string | undefined;
  do {
    const page = unwrap(await get(path, { params: { query: { ...query, ...(cursor ? { cursor } : {}) } } })) as Page<
      ListItem<P>
    >;
    yield page;
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
}

/** Every item of the list, page after page. */
export async function* list<P extends ListPath>(
  api: ApiClient,
  path: P,
  query?: ListQuery<P>,
): AsyncGenerator<ListItem<P>> {
  for await (const page of pages(api, path, query)) yield* page.data;
}
