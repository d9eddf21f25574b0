// Package units holds the value types scenario files are written in.
//
// It imports only the standard library and yaml.v3.
package units

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"gopkg.in/yaml.v3"
)

// Duration is a time.Duration that reads from YAML as "1.5s", "200ms",
// "2m" or a plain number of seconds, and writes back as a string.
type Duration time.Duration

// D returns d as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// String formats d as time.Duration does.
func (d Duration) String() string { return time.Duration(d).String() }

// UnmarshalYAML accepts a duration string or a number of seconds.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: want a duration such as \"30s\" or a number of seconds", n.Line)
	}
	v, err := ParseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %v", n.Line, err)
	}
	*d = v
	return nil
}

// MarshalYAML writes d as a duration string.
func (d Duration) MarshalYAML() (any, error) { return d.String(), nil }

// MarshalText writes d as a duration string (JSON uses it too).
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// ParseDuration reads "1.5s", "200ms", or a plain number of seconds.
func ParseDuration(s string) (Duration, error) {
	if v, err := time.ParseDuration(s); err == nil {
		return Duration(v), nil
	}
	if secs, err := strconv.ParseFloat(s, 64); err == nil && !math.IsNaN(secs) && !math.IsInf(secs, 0) {
		return Duration(secs * float64(time.Second)), nil
	}
	return 0, fmt.Errorf("%q is not a duration (write it as \"30s\", \"250ms\", \"2m\" or a number of seconds)", s)
}
