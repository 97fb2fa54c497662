# Dockerfile - tlab in a container: an image for Gradescope, PrairieLearn
# (externalGradingOptions.image) or a GitLab CI job.
#
# Stage 1 builds with exactly the README's first command (tests/autograder.sh
# checks that the RUN line is that command, so CI proves the build steps even
# where no container engine runs). Stage 2 carries only the runtime libraries
# and the installed tlab, and runs as a non-root user.
#   docker build -t tlab .
#   docker run --rm -v "$PWD:/work" -w /work tlab tlab check answers/lab01.yaml

FROM debian:12-slim AS build
WORKDIR /src
COPY . .
RUN apt-get update && apt-get install -y build-essential autoconf automake pkg-config libyaml-dev libcjson-dev check valgrind groff-base && autoreconf -fi && ./configure && make -j"$(nproc)" && ./tlab check answers/lab01.yaml
RUN make install DESTDIR=/out

FROM debian:12-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends libyaml-0-2 libcjson1 \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/usr/local/ /usr/local/
RUN useradd --create-home --uid 1000 --shell /bin/sh tlab && tlab --version
USER tlab
WORKDIR /home/tlab
CMD ["tlab", "--help"]
