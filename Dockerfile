# One image for every app process of docker-compose.yml (both APIs, the three workers, the migrate jobs);
# each service picks its entry point with `command`. TypeScript runs through tsx, so there is no build step.
FROM node:20-bookworm-slim

ENV NODE_ENV=production
WORKDIR /app

COPY package.json package-lock.json ./
RUN npm install --omit=dev --no-audit --no-fund && npm cache clean --force

# Source folders only (no node_modules or caches from the build context).
COPY tsconfig.json ./
COPY core ./core
COPY api ./api
COPY activities ./activities
COPY workflows ./workflows
COPY workers ./workers
COPY migrations ./migrations
COPY scripts ./scripts
COPY docs ./docs

USER node
EXPOSE 3000
CMD ["npx", "tsx", "api/server.ts"]
