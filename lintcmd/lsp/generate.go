package lsp

//go:generate sh -c "go run ./internal/gendesc -crds $(go mod download -json github.com/crossplane/crossplane/v2@v2.4.0 | sed -n 's/.*\"Dir\": \"\\(.*\\)\",/\\1/p')/cluster/crds -release v2.4.0 -o descriptions.json.gz"
