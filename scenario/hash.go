package scenario

import (
	"crypto/sha256"
	"encoding/hex"
)

// Hash identifies the resolved scenario: the first 16 hex digits of the
// SHA-256 of its YAML (overrides, seed and defaults applied). Every real
// node writes it in its trace's header and the run file carries the
// launcher's, so that a node started with another scenario (another file,
// another --set) is named by the analysis (docs/analysis.md, "Cross-host
// problems").
func (s *Scenario) Hash() (string, error) {
	y, err := s.YAML()
	if err != nil {
		return "", err
	}
	return HashYAML(y), nil
}

// HashYAML is Hash of a scenario already written as YAML.
func HashYAML(y []byte) string {
	sum := sha256.Sum256(y)
	return hex.EncodeToString(sum[:8])
}
