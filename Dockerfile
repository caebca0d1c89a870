# kcs from source, run with tsx. `docker compose up` uses it for `kcs serve` and `kcs worker`.
# Node 20, 22 or 24: on 24 (the LTS line) HTTP is served by node:http; NODE_VERSION=20 serves it
# with uWebSockets.js, whose build needs Node 20 (past its end of life).
ARG NODE_VERSION=24
FROM node:${NODE_VERSION}-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY . .
ENV HOST=0.0.0.0 PORT=8080 NODE_ENV=production
# The files stay root's and read-only to the service; it writes only under /tmp (tsx's cache).
USER node
EXPOSE 8080
ENTRYPOINT ["node_modules/.bin/tsx", "src/cli.ts"]
CMD ["serve"]
