# One image for every app process of docker-compose.yml (both APIs, the three workers, the migrate jobs); each
# service picks its compiled entry point with `command` (`node dist/...`). TypeScript is compiled in the build stage;
# the runtime stage has production dependencies only (no tsx, no TypeScript).
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY core ./core
COPY api ./api
COPY activities ./activities
COPY workflows ./workflows
COPY workers ./workers
COPY migrations ./migrations
COPY scripts ./scripts
COPY web ./web
RUN npx tsc -p tsconfig.build.json

FROM node:24-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app

COPY package.json package-lock.json ./
RUN npm install --omit=dev --no-audit --no-fund && npm cache clean --force

# The compiled code, and the files it reads at run time: the guides (served under /docs) and the OpenAPI document.
COPY --from=build /app/dist ./dist
COPY docs ./docs
COPY web/assets ./web/assets
# Where the `documents` volume mounts (docker-compose.yml): a new volume takes this directory's owner.
RUN mkdir -p /data/documents && chown node:node /data/documents

USER node
EXPOSE 3000
CMD ["node", "dist/api/server.js"]
