package rounds

import (
	"fmt"
	"strings"

	"manetlab/protocol"
)

// Describe implements protocol.MessageDescriber: the round, and what the
// algorithm's messages in it carry.
func (w Wire[T]) Describe() string {
	if wireType(w.Type) != wBatch {
		return fmt.Sprintf("%s, round %d", w.Kind(), w.Round)
	}
	var parts []string
	for _, m := range w.Msgs {
		s := protocol.DescribeMessage(m)
		if s == "" {
			s = m.Kind()
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return fmt.Sprintf("%s, round %d", KindNull, w.Round)
	}
	return fmt.Sprintf("round %d: %s", w.Round, strings.Join(parts, "; "))
}
