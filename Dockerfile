# jobdedup service image: python:3.11-slim, non-root, health-checked on /ready.
#   docker build -t jobdedup .        (docker-compose.yml builds and runs it beside Elasticsearch 8)
FROM python:3.11-slim AS build
# gcc builds the Cython kernels (indexer/_kernels.pyx, setup.py) into the wheel; the runtime
# stage installs that wheel and needs no compiler.
RUN apt-get update \
    && apt-get install -y --no-install-recommends gcc libc6-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY pyproject.toml setup.py README.md ./
COPY indexer ./indexer
COPY classifier ./classifier
COPY service ./service
# The official client's major version must not be newer than the server's (client 9 sends
# "compatible-with=9", which Elasticsearch 8 refuses): pin it to the cluster you run.
ARG ELASTICSEARCH_CLIENT="elasticsearch>=8.13,<9"
RUN pip wheel --no-cache-dir --wheel-dir /wheels . "${ELASTICSEARCH_CLIENT}"

FROM python:3.11-slim
ARG ELASTICSEARCH_CLIENT="elasticsearch>=8.13,<9"
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    JOBDEDUP_HOST=0.0.0.0 \
    JOBDEDUP_PORT=8000 \
    JOBDEDUP_DATA_DIR=/data
COPY --from=build /wheels /wheels
RUN pip install --no-cache-dir --no-index --find-links /wheels jobdedup "${ELASTICSEARCH_CLIENT}" \
    && rm -rf /wheels \
    && groupadd --system --gid 10001 jobdedup \
    && useradd --system --uid 10001 --gid jobdedup --home-dir /data --shell /usr/sbin/nologin jobdedup \
    && mkdir -p /data /models \
    && chown jobdedup:jobdedup /data
USER jobdedup
WORKDIR /data
VOLUME ["/data"]
EXPOSE 8000
# No curl in a slim image: the standard library asks /ready (503 while the index is down).
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:' + os.environ.get('JOBDEDUP_PORT', '8000') + '/ready', timeout=4)"]
CMD ["jobdedup", "serve"]
