package radio

import (
	"errors"
	"fmt"
	"math"
	"time"

	"manetlab/internal/units"
)

// Names of the propagation and loss models, as written in scenario files.
const (
	UnitDisk    = "unit-disk"
	LogDistance = "log-distance"
	TwoRay      = "two-ray"

	LossNone      = "none"
	LossBernoulli = "bernoulli"
	LossDistance  = "distance"
	LossGilbert   = "gilbert-elliott"
)

// Defaults of the radio section; see the field comments of Config.
const (
	DefaultRange         = 250.0
	DefaultTxPower       = 20.0
	DefaultExponent      = 3.0
	DefaultFrequency     = 2.4e9
	DefaultAntennaHeight = 1.5
	DefaultDelay         = 2 * time.Millisecond
	DefaultLossStart     = 0.5
	DefaultGoodToBad     = 0.05
	DefaultBadToGood     = 0.3
	DefaultLossBad       = 0.8
	DefaultHelloPeriod   = time.Second
	DefaultMAC           = MACDCF
	// DefaultHelloTimeoutPeriods is the hello timeout in periods.
	DefaultHelloTimeoutPeriods = 3.5
)

// Defaults fills every zero field with its documented default. It never
// overwrites a value that was set, so it is safe to call more than once.
// Zero cannot be asked for explicitly in fields whose default is not zero
// (e.g. loss.start); loss_bad and threshold are pointers for that reason.
func (c *Config) Defaults() {
	if c.Propagation == "" {
		c.Propagation = UnitDisk
	}
	if c.Range == 0 {
		c.Range = DefaultRange
	}
	if c.TxPower == 0 {
		c.TxPower = DefaultTxPower
	}
	if c.Exponent == 0 {
		c.Exponent = DefaultExponent
	}
	if c.Frequency == 0 {
		c.Frequency = DefaultFrequency
	}
	if c.AntennaHeight == 0 {
		c.AntennaHeight = DefaultAntennaHeight
	}
	if c.Delay == 0 {
		c.Delay = units.Duration(DefaultDelay)
	}
	c.Loss.defaults()
	if c.MAC == "" {
		c.MAC = DefaultMAC
	}
	c.DCF.defaults(c.Range)
	if c.Hello.Period == 0 {
		c.Hello.Period = units.Duration(DefaultHelloPeriod)
	}
	if c.Hello.Timeout == 0 {
		c.Hello.Timeout = units.Duration(float64(c.Hello.Period) * DefaultHelloTimeoutPeriods)
	}
}

func (l *LossConfig) defaults() {
	if l.Model == "" {
		if l.P > 0 {
			l.Model = LossBernoulli
		} else {
			l.Model = LossNone
		}
	}
	if l.Start == 0 {
		l.Start = DefaultLossStart
	}
	if l.GoodToBad == 0 {
		l.GoodToBad = DefaultGoodToBad
	}
	if l.BadToGood == 0 {
		l.BadToGood = DefaultBadToGood
	}
	if l.LossBad == nil {
		v := DefaultLossBad
		l.LossBad = &v
	}
}

// Validate checks a configuration after Defaults. It reports every problem
// at once (joined), each naming its field path from "radio." and what is
// allowed.
func (c *Config) Validate() error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("radio.%s: "+format, append([]any{field}, args...)...))
	}
	switch c.Propagation {
	case UnitDisk, LogDistance, TwoRay:
	default:
		bad("propagation", "%q is unknown (allowed: %s, %s, %s)", c.Propagation, UnitDisk, LogDistance, TwoRay)
	}
	positive := func(field string, v float64) {
		if !(v > 0) || math.IsInf(v, 0) {
			bad(field, "must be above 0 and finite (got %g)", v)
		}
	}
	positive("range", c.Range)
	if !finite(c.TxPower) {
		bad("tx_power", "must be a finite number of dBm (got %g)", c.TxPower)
	}
	positive("exponent", c.Exponent)
	positive("frequency", c.Frequency)
	positive("antenna_height", c.AntennaHeight)
	if !(c.Shadowing >= 0) || math.IsInf(c.Shadowing, 0) {
		bad("shadowing", "must be 0 or above, in dB (got %g)", c.Shadowing)
	} else if c.Shadowing > 0 && c.Propagation != LogDistance {
		bad("shadowing", "only %s supports shadowing (propagation is %q)", LogDistance, c.Propagation)
	}
	if c.Threshold != nil {
		if !finite(*c.Threshold) {
			bad("threshold", "must be a finite number of dBm (got %g)", *c.Threshold)
		} else if c.Propagation == UnitDisk {
			bad("threshold", "only %s and %s use a threshold; unit-disk uses range", LogDistance, TwoRay)
		}
	}
	if c.Delay < 0 {
		bad("delay", "must be 0 or above (got %s)", c.Delay)
	}
	errs = append(errs, c.Loss.validate()...)
	switch c.MAC {
	case MACIdeal:
	case MACDCF:
		errs = append(errs, c.DCF.validate(c.Propagation)...)
	default:
		bad("mac", "%q is unknown (allowed: %s, %s)", c.MAC, MACIdeal, MACDCF)
	}
	if c.Hello.Period <= 0 {
		bad("hello.period", "must be above 0 (got %s)", c.Hello.Period)
	}
	if c.Hello.Timeout <= c.Hello.Period {
		bad("hello.timeout", "%s must exceed hello.period %s", c.Hello.Timeout, c.Hello.Period)
	}
	return errors.Join(errs...)
}

func (l *LossConfig) validate() []error {
	var errs []error
	prob := func(field string, v float64) {
		if !(v >= 0 && v <= 1) {
			errs = append(errs, fmt.Errorf("radio.loss.%s: %g is not a probability (want 0 to 1)", field, v))
		}
	}
	switch l.Model {
	case LossNone, LossBernoulli, LossDistance, LossGilbert:
	default:
		errs = append(errs, fmt.Errorf("radio.loss.model: %q is unknown (allowed: %s, %s, %s, %s)",
			l.Model, LossNone, LossBernoulli, LossDistance, LossGilbert))
	}
	prob("p", l.P)
	if l.Model == LossNone && l.P > 0 {
		errs = append(errs, fmt.Errorf("radio.loss.p: %g has no effect with radio.loss.model %q (use %s, or leave the model out and p alone picks %s)",
			l.P, LossNone, LossBernoulli, LossBernoulli))
	}
	if !(l.Start >= 0 && l.Start < 1) {
		errs = append(errs, fmt.Errorf("radio.loss.start: %g is not a fraction of the range (want 0 to below 1)", l.Start))
	}
	prob("good_to_bad", l.GoodToBad)
	prob("bad_to_good", l.BadToGood)
	prob("loss_good", l.LossGood)
	if l.LossBad != nil {
		prob("loss_bad", *l.LossBad)
	}
	return errs
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
