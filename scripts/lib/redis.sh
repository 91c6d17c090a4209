# shellcheck shell=bash
# Redis: a daemonized redis-server on 127.0.0.1:6379 for the running stack, and one on 127.0.0.1:6380 for the tests
# (each test process uses a database of its own there: test/support/test-slot.ts), each with its data, log and
# pidfile in the cache. The tests never touch the stack's.

REDIS_HOST=127.0.0.1
REDIS_PORT=6379
REDIS_TESTS_PORT=6380

redis_answering() { [[ $(redis-cli -h "$REDIS_HOST" -p "${1:-$REDIS_PORT}" ping 2>/dev/null) == PONG ]]; }
redis_tests_answering() { redis_answering "$REDIS_TESTS_PORT"; }

# Usage: start_redis NAME PORT
start_redis() {
  local name=$1 port=$2 dir="$CACHE_DIR/$1"
  mkdir -p "$dir" "$RUN_DIR"
  # 9>&-: the daemon must not inherit the bootstrap lock (see bootstrap.sh), or it would hold it forever.
  redis-server --bind "$REDIS_HOST" --port "$port" --daemonize yes \
    --dir "$dir" --pidfile "$RUN_DIR/$name.pid" --logfile "$dir/redis.log" 9>&-
}

ensure_redis() {
  step "Redis on $REDIS_HOST:$REDIS_PORT"
  if redis_answering; then
    info "already answering"
    return
  fi
  start_redis redis "$REDIS_PORT"
  wait_for 30 Redis redis_answering
  info "started (log: $CACHE_DIR/redis/redis.log)"
  record_started "redis $REDIS_HOST $REDIS_PORT"
}

# Not recorded as started by this run: `npm start` stopping on exit must not take the tests' server away.
ensure_redis_tests() {
  step "Redis for tests on $REDIS_HOST:$REDIS_TESTS_PORT"
  if redis_tests_answering; then
    info "already answering"
    return
  fi
  start_redis redis-tests "$REDIS_TESTS_PORT"
  wait_for 30 "Redis (tests)" redis_tests_answering
  info "started (log: $CACHE_DIR/redis-tests/redis.log)"
}
