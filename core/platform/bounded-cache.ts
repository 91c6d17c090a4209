/**
 * A value made once per key and kept: for values derived from a few keys the caller expects (statement texts, a
 * frame's rendered layout, formatted amounts). Bounded all the same: the cache is emptied when it holds `max`
 * entries, in case the keys turn out not to be few.
 */
export function cachedIn<V>(cache: Map<string, V>, key: string, make: () => V, max = 1_000): V {
  let value = cache.get(key);
  if (value === undefined) {
    if (cache.size >= max) cache.clear();
    value = make();
    cache.set(key, value);
  }
  return value;
}
