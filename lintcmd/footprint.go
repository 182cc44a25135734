package lintcmd

import (
	"strconv"

	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/api/resource"
)

// footprintKey reads the configuration keys of the graph's footprint
// thresholds (XP610, graph-footprint-limit): max-crds, the CRDs the graph
// may serve at install, and max-apiserver-memory, the most API server
// memory its estimate may reach, a Kubernetes quantity such as 2Gi.
func (c *projectConfig) footprintKey(file string, k, v *yaml.Node) error {
	if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
		return configError(file, v, "%s: want a number", k.Value)
	}
	if k.Value == "max-crds" {
		n, err := strconv.Atoi(v.Value)
		if err != nil || n <= 0 {
			return configError(file, v, "max-crds: %q is not a positive count of CRDs", v.Value)
		}
		c.footprint.MaxCRDs = n
		return nil
	}
	// A quantity of bytes an int64 holds is at most 20 digits and a
	// suffix; resource.ParseQuantity's cost grows with the string's
	// length (900 KB of digits took 12 s), so a longer value is refused
	// before it is parsed.
	const maxQuantityLen = 64
	if len(v.Value) > maxQuantityLen {
		return configError(file, v, "max-apiserver-memory: %q is not a positive quantity of bytes (such as 2Gi): longer than %d bytes", v.Value, maxQuantityLen)
	}
	q, err := resource.ParseQuantity(v.Value)
	n, ok := q.AsInt64()
	if err != nil || !ok || n <= 0 {
		return configError(file, v, "max-apiserver-memory: %q is not a positive quantity of bytes (such as 2Gi)", v.Value)
	}
	c.footprint.MaxAPIServerBytes = n
	return nil
}
