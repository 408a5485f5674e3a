# fed-apiserver's container image, which also holds fed-agent (a pull cluster's agent runs it with
# command /usr/local/bin/fed-agent): static binaries on distroless, run as the nonroot user
# (65532), for building with a container engine (docker build .). make image builds the same
# layout without an engine or a registry (hack/image), as an OCI archive.
FROM golang:1.26 AS build
# fed needs Go 1.27.3 (go.mod), which the go command fetches.
ENV GOTOOLCHAIN=go1.27.3
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o /out/ ./cmd/fed-apiserver ./cmd/fed-agent

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/fed-apiserver /out/fed-agent /usr/local/bin/
USER 65532:65532
EXPOSE 6443
ENTRYPOINT ["/usr/local/bin/fed-apiserver"]
