#!/bin/sh
# fetch-crds.sh DIR fetches the inputs of gen.go and gen_crds.go: Crossplane's
# own CustomResourceDefinitions (cluster/crds/ of crossplane/crossplane,
# Apache-2.0, unmodified) of each release below, into DIR/TAG/. Each release
# is pinned: a git tag to its commit (a tag that moved fails the fetch), a
# Go module version to its go.sum hash (go mod download checks it against
# the checksum database too).
#
# CROSSPLANE_GIT names the repository to fetch the git releases from: a URL,
# or the path of a clone or mirror (default
# https://github.com/crossplane/crossplane.git).
set -eu

# release tag and the commit it must name
releases='
v1.20.11 7e2a292f1493b86504ede4db22bff2a78608157c
v2.0.2 7d9ef017110d6d1d716f886df9cce02b0378f5e1
v2.1.0 9d73aae0c70df58b9ffd3d663fe82109c035dc79
v2.2.4 b34b67323136816f02ad9a4d11c915b89c12abb6
v2.3.4 c2670a735103660d7f436585447f2071bc1de973
'

# release tag, the Go module that holds it, and its go.sum hash: releases
# read through the Go module proxy
modules='
v2.4.0 github.com/crossplane/crossplane/v2 h1:atHTxD+8jOOiM1Xf6UMlyZqPYMedRVDSGU10Znt4KR8=
'

dir=${1:?usage: fetch-crds.sh DIR}
repo=${CROSSPLANE_GIT:-https://github.com/crossplane/crossplane.git}
git=$(mktemp -d)
trap 'rm -rf "$git"' EXIT
git init -q --bare "$git"
echo "$releases" | while read -r tag commit; do
	[ -n "$tag" ] || continue
	git --git-dir="$git" fetch -q --depth 1 "$repo" "refs/tags/$tag:refs/tags/$tag"
	got=$(git --git-dir="$git" rev-parse "$tag^{commit}")
	if [ "$got" != "$commit" ]; then
		echo "fetch-crds.sh: $tag is $got, want $commit" >&2
		exit 1
	fi
	mkdir -p "$dir/$tag"
	git --git-dir="$git" archive "$commit" cluster/crds | tar -x -C "$dir/$tag" --strip-components 2
done
echo "$modules" | while read -r tag module sum; do
	[ -n "$tag" ] || continue
	json=$(go mod download -json "$module@$tag")
	got=$(echo "$json" | sed -n 's/^[[:space:]]*"Sum": "\(.*\)",*$/\1/p')
	if [ "$got" != "$sum" ]; then
		echo "fetch-crds.sh: $module@$tag is $got, want $sum" >&2
		exit 1
	fi
	src=$(echo "$json" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p')
	mkdir -p "$dir/$tag"
	cp "$src"/cluster/crds/*.yaml "$dir/$tag/"
	chmod u+w "$dir/$tag"/*.yaml
done
