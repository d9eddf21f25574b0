package mutex

import (
	"fmt"

	"manetlab/protocol"
	"manetlab/protocol/reliable"
)

// channelTimer names the timers of the reliable channel that the
// all-to-all algorithms send through, and so the Chan of its
// acknowledgements: a composed protocol's other channels leave them alone.
const channelTimer = "mutex"

// channelConfig reads the reliable channel's "rto" and "retries" from r
// (reliable.ParamsConfig: errors name the field) for a channel with the
// timer name "mutex".
func channelConfig(r *protocol.ParamReader) reliable.Config {
	cfg := reliable.ParamsConfig(r)
	cfg.Timer = channelTimer
	return cfg
}

// peerParams reads the parameters of Ricart-Agrawala, Lamport and
// Suzuki-Kasami, which have only the channel's: rto and retries. Unknown
// keys are refused; an error names the algorithm and the field.
func peerParams(alg string, p protocol.Params) (reliable.Config, error) {
	r := p.Reader()
	cfg := channelConfig(r)
	if err := r.Err(); err != nil {
		return reliable.Config{}, fmt.Errorf("%s: %w", alg, err)
	}
	return cfg, nil
}
