# parley in a container: the `parley` command, which serves an agent by default. Never built
# here (no docker where parley is developed and tested); test/deploy/dockerfile.test.ts checks
# what it can without docker (the ENTRYPOINT is the bin npm pack ships, the CMD serves, the build
# stage gets every file it reads past .dockerignore); see docs/operations.md.
#
#   docker build -t parley .
#   docker run --rm -p 8080:8080 parley                                   # an echo agent
#   docker run --rm -p 8000:8000 parley serve registry --url http://0.0.0.0:8000 --db /data/registry.db
#
# The build stage needs the network for `npm ci` and `npm install` (better-sqlite3, the
# registry's store on Node 20, fetches a prebuilt binary for linux x64 or arm64; on other
# platforms it compiles and needs python3, make and g++ added to that stage).

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json README.md ./
COPY scripts/build.mjs scripts/
COPY src src
COPY generated generated
COPY schemas schemas
COPY proto proto
COPY docs docs
# The image holds the package as another project installs it: the packed tarball, plus every
# optional peer but express (the heavier features are optional peers of parley-agents), so
# every transport, store and provider works in it.
RUN npm run build && npm pack --pack-destination /tmp && mkdir /runtime && cd /runtime && \
    echo '{"private": true}' > package.json && \
    npm install --omit=dev --no-audit --no-fund /tmp/parley-agents-*.tgz \
      $(node -p "Object.entries(require('/app/package.json').peerDependencies).filter(([n]) => n !== 'express').map(([n, v]) => n + '@' + v).join(' ')")

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /runtime/node_modules node_modules
# Where a registry keeps its SQLite file; a volume mounted here starts owned by the node user.
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 8080 8000
ENTRYPOINT ["node", "node_modules/parley-agents/dist/src/cli/main.js"]
CMD ["serve", "agent", "--url", "http://0.0.0.0:8080"]
