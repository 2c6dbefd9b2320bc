# syntax=docker/dockerfile:1
# The console as a container image: a static binary on distroless, non-root.
#   docker build -t ghcr.io/tabula-console/tabula:dev .
# (Docker does not run on the machines this project is developed on; the
# build stage's command is what `make tabula` runs, with CGO off.)

# The Go version of go.mod.
FROM golang:1.26.8-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
# The templ output (*_templ.go) and the editor bundle (static/editor.js) are
# committed, so the build needs neither templ nor npm.
COPY . .
ENV CGO_ENABLED=0
RUN go build -trimpath -buildvcs=false -ldflags="-s -w" -o /out/tabula ./cmd/tabula

# Static (no libc), with CA certificates and /etc/passwd's nonroot user.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/tabula /tabula
USER 65532:65532
EXPOSE 8080 9090
ENTRYPOINT ["/tabula"]
