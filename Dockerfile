# docsmith with LibreOffice, fonts and spelling dictionaries, run as a non-root user.
#   docker build -t docsmith .          (podman build works the same)
#   docker run -p 8080:8080 -v docsmith-data:/data -e DOCSMITH_BOOTSTRAP_USER=me -e DOCSMITH_BOOTSTRAP_PASSWORD=... docsmith
# BASE_IMAGE: a Debian bookworm image with Node.js (22 or 24; 20.10+ still works) and npm.
ARG BASE_IMAGE=node:22-bookworm-slim

# Build: npm packages (the SQLite binding compiles here), TypeScript, the portal, the client.
FROM ${BASE_IMAGE} AS build
WORKDIR /app
ENV DOCSMITH_BROWSER_TESTS=0 DOCSMITH_OFFICE_PROCESSES=0
COPY package.json package-lock.json ./
COPY scripts ./scripts
COPY src/proofing/dictionaries.json ./src/proofing/dictionaries.json
RUN node scripts/setup.mjs --npm-only
COPY . .
RUN node scripts/setup.mjs && npm prune --omit=dev --no-audit --no-fund && node scripts/slim-node-modules.mjs

# Run: the office, fonts and dictionaries from Debian (one list: scripts/setup.mjs), no compilers,
# no manuals or message translations (the copyright files stay). DOCSMITH_DICTIONARIES picks the
# spelling dictionaries (all: about 157 MB; "en_US.dic,de_DE_frami.dic": about 5 MB).
FROM ${BASE_IMAGE}
ARG BASE_IMAGE
ARG DOCSMITH_DICTIONARIES=all
# The release this image is (package.json's version; test/unit/kubernetes.test.ts keeps them equal).
ARG VERSION=0.1.0
LABEL org.opencontainers.image.title="docsmith" \
      org.opencontainers.image.description="Self-hosted document generation: merge JSON into Word templates; wire-compatible with the ReportingCloud API" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.licenses="MIT" \
      org.opencontainers.image.base.name="${BASE_IMAGE}"
WORKDIR /app
COPY package.json ./
COPY scripts/setup.mjs ./scripts/setup.mjs
COPY src/proofing/dictionaries.json ./src/proofing/dictionaries.json
RUN printf '%s\n' 'path-exclude=/usr/share/doc/*' 'path-include=/usr/share/doc/*/copyright' 'path-exclude=/usr/share/man/*' \
      'path-exclude=/usr/share/info/*' 'path-exclude=/usr/share/locale/*' > /etc/dpkg/dpkg.cfg.d/docsmith-slim \
 && node scripts/setup.mjs --system-only && apt-get install -y --no-install-recommends tini && apt-get clean && rm -rf /var/lib/apt/lists/*
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/bin ./bin
COPY --from=build /app/samples ./samples
COPY --from=build /app/packages/client/dist ./packages/client/dist
COPY --from=build /app/packages/client/package.json ./packages/client/package.json
RUN useradd --system --uid 10001 --user-group --home-dir /data --shell /usr/sbin/nologin docsmith \
 && mkdir -p /data && chown docsmith:docsmith /data
USER docsmith
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 DOCSMITH_DATA_DIR=/data HOME=/data
VOLUME /data
EXPOSE 8080
# Ready: the database answers and an office process is warm (the start takes a few seconds).
HEALTHCHECK --interval=15s --timeout=5s --start-period=90s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# tini is PID 1: it reaps the processes the office and the signing tools leave (node would not)
# and passes SIGTERM on: node drains requests and jobs (DOCSMITH_SHUTDOWN_GRACE_MS), then exits.
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/main.js"]
