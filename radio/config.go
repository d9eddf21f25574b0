// Package radio is the wireless medium: propagation and loss models, the
// spatial index that finds who can hear a transmission, and the medium that
// both drivers ask who heard a frame.
//
// It belongs to the world model: it imports internal/geo, internal/units and
// mobility, never a driver or a protocol. A new propagation or loss model
// goes here.
package radio

import "manetlab/internal/units"

// Config is the scenario's `radio:` section. Every field has a default
// (see Defaults); zero values mean "use the default".
type Config struct {
	// Propagation is the model: "unit-disk" (default), "log-distance" or
	// "two-ray".
	Propagation string `yaml:"propagation"`
	// Range is the nominal radio range in metres (default 250). For
	// unit-disk it is exact; for log-distance and two-ray the receive
	// threshold is derived from it unless Threshold is given, so that the
	// mean received power equals the threshold at this distance.
	Range float64 `yaml:"range"`
	// TxPower is the transmit power in dBm (default 20).
	TxPower float64 `yaml:"tx_power"`
	// Exponent is the log-distance path-loss exponent (default 3).
	Exponent float64 `yaml:"exponent"`
	// Shadowing is the standard deviation of log-normal shadowing in dB,
	// log-distance only (default 0: none).
	Shadowing float64 `yaml:"shadowing"`
	// Threshold is the receive sensitivity in dBm; nil derives it from
	// Range.
	Threshold *float64 `yaml:"threshold"`
	// Frequency in Hz (default 2.4e9), for the reference loss at 1 m and
	// for two-ray's crossover distance.
	Frequency float64 `yaml:"frequency"`
	// AntennaHeight in metres (default 1.5), two-ray only.
	AntennaHeight float64 `yaml:"antenna_height"`
	// Delay is the one-hop latency of a frame (default 2ms).
	Delay units.Duration `yaml:"delay"`
	// Loss is the loss model applied after propagation.
	Loss LossConfig `yaml:"loss"`
	// Hello configures neighbour discovery.
	Hello HelloConfig `yaml:"hello"`
	// MAC is the medium: "ideal" (no airtime, no collisions: every frame
	// arrives Delay after it was sent) or "dcf" (802.11 DCF: airtime,
	// carrier sense, backoff, collisions; Delay is not used), with the
	// DCF's constants.
	MAC string    `yaml:"mac"`
	DCF DCFConfig `yaml:"dcf"`
}

// LossConfig is the `radio.loss:` section.
type LossConfig struct {
	// Model is "none", "bernoulli", "distance" or "gilbert-elliott". When
	// empty it is "bernoulli" if P > 0 and "none" otherwise.
	Model string `yaml:"model"`
	// P is the loss probability for bernoulli; for distance, the loss
	// probability at the edge of the range (it grows linearly from 0 at
	// Start*range).
	P float64 `yaml:"p"`
	// Start is where distance loss begins, as a fraction of the range
	// (default 0.5).
	Start float64 `yaml:"start"`
	// Gilbert-Elliott, per directed link: transition probabilities per
	// frame and loss probability in each state. Defaults: good->bad 0.05,
	// bad->good 0.3, loss in good 0, loss in bad 0.8.
	GoodToBad float64  `yaml:"good_to_bad"`
	BadToGood float64  `yaml:"bad_to_good"`
	LossGood  float64  `yaml:"loss_good"`
	LossBad   *float64 `yaml:"loss_bad"`
}

// HelloConfig is the `radio.hello:` section: neighbour discovery by
// periodic hello broadcasts.
type HelloConfig struct {
	// Period between hellos (default 1s).
	Period units.Duration `yaml:"period"`
	// Timeout after which an unheard neighbour is declared down
	// (default 3.5 periods).
	Timeout units.Duration `yaml:"timeout"`
}
