package main

import "github.com/xpkgkit/xpkgkit/linter/checker"

func main() { checker.New(checker.WithName("xpkg-lint")).Main() }
