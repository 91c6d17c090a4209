# shellcheck shell=bash
# Redis: a daemonized redis-server on 127.0.0.1:6379 with its data and pidfile in the cache.

REDIS_HOST=127.0.0.1
REDIS_PORT=6379

redis_answering() { [[ $(redis-cli -h "$REDIS_HOST" -p "$REDIS_PORT" ping 2>/dev/null) == PONG ]]; }

ensure_redis() {
  step "Redis on $REDIS_HOST:$REDIS_PORT"
  if redis_answering; then
    info "already answering"
    return
  fi
  mkdir -p "$CACHE_DIR/redis" "$RUN_DIR"
  # 9>&-: the daemon must not inherit the bootstrap lock (see bootstrap.sh), or it would hold it forever.
  redis-server --bind "$REDIS_HOST" --port "$REDIS_PORT" --daemonize yes \
    --dir "$CACHE_DIR/redis" --pidfile "$RUN_DIR/redis.pid" --logfile "$CACHE_DIR/redis/redis.log" 9>&-
  wait_for 30 Redis redis_answering
  info "started (log: $CACHE_DIR/redis/redis.log)"
  record_started "redis $REDIS_HOST $REDIS_PORT"
}
