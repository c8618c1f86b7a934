# Schmier: one container serving the HTTP API, the WebSockets and the static client.
# Build: docker build -t schmier .   Run: docker compose up -d (see docs/self-hosting.md)

FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /src

# Dependencies first, in their own layer: it is rebuilt only when pyproject.toml
# changes, not on every edit of the code.
COPY pyproject.toml ./
RUN python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" \
        > /tmp/requirements.txt \
    && pip install -r /tmp/requirements.txt \
    && rm /tmp/requirements.txt

# Then the package itself, installed (not editable) so the static client ships inside
# it as app/web; the sources are removed so nothing shadows the installed package.
COPY README.md ./
COPY app ./app
COPY web ./web
RUN pip install --no-deps . \
    && rm -rf /src

RUN useradd --system --uid 10001 --user-group --no-create-home --home-dir /nonexistent schmier
USER schmier
WORKDIR /tmp

# Listen on all interfaces inside the container; publish the port to choose where it
# is reachable from. Behind a reverse proxy set SCHMIER_PROXY_HEADERS=true and
# SCHMIER_FORWARDED_ALLOW_IPS to the proxy's address (see docs/self-hosting.md).
# The port stays 8000 (the health check below asks there); change the published port.
ENV SCHMIER_HOST=0.0.0.0 \
    SCHMIER_PROXY_HEADERS=false \
    SCHMIER_FORWARDED_ALLOW_IPS=127.0.0.1

EXPOSE 8000

# The slim image has no curl; Python's urllib is enough. urlopen raises on any non-2xx
# answer or a refused connection, which makes the check fail.
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4)"]

CMD ["python", "-m", "app"]
