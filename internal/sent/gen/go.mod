module github.com/xpkgkit/xpkgkit/internal/sent/gen

go 1.26.8
