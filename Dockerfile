# The Amaryllis server image: `amaryllis serve` (IMAP poller + scheduler + outbox sender) as a non-root user.
# Build: docker build -t amaryllis .      Run: see docker-compose.yml and docs/deploy.md.
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    AMARYLLIS_DATA_DIR=/data

# a fixed uid/gid so that volume ownership is predictable across rebuilds
RUN groupadd --system --gid 10001 amaryllis \
 && useradd --system --uid 10001 --gid amaryllis --home-dir /app --shell /usr/sbin/nologin amaryllis \
 && mkdir -p /data && chown amaryllis:amaryllis /data

# build in /src: dependencies first (cached while only the code changes), then the code
WORKDIR /src
COPY pyproject.toml setup.py MANIFEST.in README.md ./
RUN mkdir app templates migrations && touch app/__init__.py \
 && pip install . && pip uninstall -y amaryllis-server && rm -rf app templates migrations build
COPY app ./app
COPY migrations ./migrations
COPY templates ./templates
# a plain (not editable) install: the build ships templates/ and migrations/ inside the package
# (setup.py, app/paths.py), so nothing is read from /src afterwards and it is removed
RUN pip install --no-deps . && rm -rf /src
WORKDIR /app
COPY config/amaryllis.toml.example ./config/amaryllis.toml.example
RUN chown -R root:root /app

USER amaryllis
VOLUME ["/data"]
# `serve` migrates the database to head before it starts its loops (app.db.session.session_factory)
EXPOSE 8080
HEALTHCHECK --interval=60s --timeout=20s --start-period=30s --retries=3 CMD ["amaryllis", "status", "--check"]
STOPSIGNAL SIGTERM
CMD ["amaryllis", "serve"]
