#!/bin/sh
# generate.sh regenerates crds.json (gen_crds.go) and kinds.json (gen.go)
# from Crossplane's CRDs, fetched by fetch-crds.sh into a temporary
# directory, and Kubernetes' published OpenAPI (the k8s.io/kubernetes module,
# fetched by gen.go with go mod download). go generate runs it.
set -eu
crds=$(mktemp -d)
trap 'rm -rf "$crds"' EXIT
sh fetch-crds.sh "$crds"
go run gen_crds.go -crds "$crds" -releases v1.20.11,v2.0.2,v2.1.0,v2.2.4,v2.3.4,v2.4.0 -o crds.json
go run gen.go -crds "$crds/v2.1.0" -crossplane v2.1.0 -kubernetes v1.37.2 -kubernetes-v1beta1 v1.21.14 -o kinds.json
