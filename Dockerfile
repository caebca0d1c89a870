# kcs from source, run with tsx. `docker compose up` uses it for `kcs serve` and `kcs worker`.
FROM node:20-bookworm-slim
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
