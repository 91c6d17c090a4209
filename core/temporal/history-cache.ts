/**
 * The history service's cache of workflows' mutable state on a real Temporal server (the production profile and
 * docker-compose.yml, through ops/temporal-dynamic-config.yaml): at most 4,096 workflows instead of the server's
 * default of 128,000 kept up to an hour, under which its memory grew with every debt and delivery touched in the last
 * hour (docs/operators/operations.md). A workflow not in the cache is read from the database on its next task. The
 * development server (`temporal server start-dev`) keeps its own defaults.
 */
export const HISTORY_CACHE_DYNAMIC_CONFIG: Readonly<Record<string, boolean | number>> = {
  'history.hostLevelCacheMaxSize': 4096,
};
