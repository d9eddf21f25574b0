package baseline

import (
	"fmt"

	"manetlab/protocol"
)

// Describe implements protocol.Describer: the best (value, ID) known.
func (f *FloodMax) Describe() string {
	switch f.best.Leader {
	case protocol.None:
		return "no leader known"
	case f.id:
		return fmt.Sprintf("leading (value %g), announcement %d", f.value, f.seq)
	}
	return fmt.Sprintf("best known %d (value %g), lease until %s", f.best.Leader, f.best.Value, f.expires)
}
