# Schmier: one container serving the HTTP API, the WebSockets and the static client.
# Build: docker build -t schmier .   Run: docker compose up -d (see docs/self-hosting.md)
# (podman: podman build --format docker -t schmier . keeps the HEALTHCHECK below.)

# The build stage: the locked dependencies and the server, installed into a virtual
# environment that the final stage copies; pip's build tools stay behind in this stage.
FROM python:3.11.14-slim-bookworm AS build

ENV PYTHONDONTWRITEBYTECODE=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /src

# Dependencies first, in their own layer: it is rebuilt only when the lock changes, not
# on every edit of the code. Every file pip installs is checked against the lock's hashes.
COPY requirements/server.txt requirements/build.txt ./requirements/
RUN python -m venv --without-pip /opt/schmier \
    && pip --python /opt/schmier/bin/python install --no-deps --require-hashes \
        -r requirements/server.txt \
    && pip install --no-deps --require-hashes -r requirements/build.txt

# Then the package itself, built with the locked build backend (no download) and
# installed (not editable) so the static client ships inside it as schmier/web.
COPY pyproject.toml README.md LICENSE ./
COPY schmier ./schmier
COPY web ./web
RUN pip wheel --no-deps --no-build-isolation --wheel-dir /tmp/wheels . \
    && pip --python /opt/schmier/bin/python install --no-deps /tmp/wheels/*.whl

# The final stage: the base image, the virtual environment, a user. No compiler, no
# build backend, no pip inside the environment.
FROM python:3.11.14-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PATH=/opt/schmier/bin:$PATH

COPY --from=build /opt/schmier /opt/schmier

# A fixed uid and gid (10001), so volumes and file permissions are predictable.
# /data holds the archive's SQLite file (docs/archive.md): a volume, owned by that user
# (a new named volume takes the directory's owner from the image).
RUN groupadd --system --gid 10001 schmier \
    && useradd --system --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent \
        --shell /usr/sbin/nologin schmier \
    && mkdir /data && chown 10001:10001 /data
USER schmier:schmier
VOLUME /data
WORKDIR /tmp

# Listen on all interfaces inside the container; publish the port to choose where it
# is reachable from. Behind a reverse proxy set SCHMIER_PROXY_HEADERS=true and
# SCHMIER_FORWARDED_ALLOW_IPS to the proxy's address (see docs/self-hosting.md).
ENV SCHMIER_HOST=0.0.0.0 \
    SCHMIER_DATA_DIR=/data \
    SCHMIER_PROXY_HEADERS=false \
    SCHMIER_FORWARDED_ALLOW_IPS=127.0.0.1

EXPOSE 8000

# `python -m schmier.healthcheck` asks /healthz on SCHMIER_PORT and fails on any non-2xx
# answer or a refused connection (a command without spaces: see schmier/healthcheck.py).
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
    CMD ["python", "-m", "schmier.healthcheck"]

CMD ["python", "-m", "schmier"]
