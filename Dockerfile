# Dockerfile - tlab in a container: the image for PrairieLearn's external
# grader (externalGradingOptions.image, which `tlab autograder prairielearn`
# names tlab/tlab:VERSION unless --image says otherwise) or a GitLab CI job.
# Gradescope does not use it: a zip autograder runs on Gradescope's own
# image, built by the bundle's setup.sh.
#
# Build it from a clean export of the sources, so that nothing of a build
# tree gets in (.dockerignore keeps objects, .git and build trees out when
# the context is a working tree):
#   git archive --format=tar HEAD | docker build -t tlab/tlab:0.1.0 -
# or from an unpacked release tarball (`make dist`):
#   tar xzf tlab-0.1.0.tar.gz && docker build -t tlab/tlab:0.1.0 tlab-0.1.0
#
# Stage 1 installs only what building needs (autoconf and automake: a git
# export has no configure script, and one from a working tree is remade
# from scratch; no valgrind, no groff), builds and grades the reference
# sheet once. Stage 2 carries the runtime libraries, unzip
# (run.sh opens zipped sheets) and the installed tlab. It runs as root, as
# PrairieLearn runs its graders (it mounts /grade owned by root, and run.sh
# creates /grade/results); tlab's op language reaches no file, process or
# network, so the student's sheet gains nothing from that.
FROM debian:12-slim AS build
WORKDIR /src
COPY . .
RUN apt-get update \
    && apt-get install -y --no-install-recommends build-essential autoconf automake pkg-config libyaml-dev libcjson-dev check \
    && autoreconf -fi \
    && ./configure \
    && make -j"$(nproc)" \
    && ./tlab check answers/lab01.yaml \
    && make install DESTDIR=/out

FROM debian:12-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends libyaml-0-2 libcjson1 unzip \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/usr/local/ /usr/local/
RUN tlab --version
WORKDIR /grade
CMD ["tlab", "--help"]
