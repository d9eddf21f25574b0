# The manetlab image for sweeps on Kubernetes (scripts/k8s/sweep-job.yaml):
# one static binary (CGO_ENABLED=0: no libc, no shell) and the scenario
# files under /configs, on an empty base image.
#
#   docker build -t manetlab .
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o /out/manetlab ./cmd/manetlab

FROM scratch
COPY --from=build /out/manetlab /manetlab
COPY configs /configs
USER 65532:65532
ENTRYPOINT ["/manetlab"]
