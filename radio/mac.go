package radio

import (
	"fmt"
	"math"
	"time"

	"manetlab/internal/units"
)

// Names of the media, as written in scenario files (radio.mac).
const (
	// MACIdeal is the medium without airtime: every frame reaches every
	// receiver in range radio.delay after it was sent, whatever else is
	// on the air.
	MACIdeal = "ideal"
	// MACDCF is the 802.11 DCF model (docs/radio.md, "The medium").
	MACDCF = "dcf"
)

// DCFConfig is the `radio.dcf:` section: the constants of the 802.11 DCF
// model, 802.11b's (DSSS, long preamble) by default. Zero fields take
// their default.
type DCFConfig struct {
	// Bitrate of unicast frames in Mbps: 1, 2, 5.5 or 11 (default 1).
	Bitrate float64 `yaml:"bitrate"`
	// BasicRate of broadcast frames and acknowledgements (default 1).
	BasicRate float64 `yaml:"basic_rate"`
	// Preamble is the PLCP preamble and header, sent before every frame
	// (default 192µs: the long preamble).
	Preamble units.Duration `yaml:"preamble"`
	// Slot, SIFS: the DCF's times (defaults 20µs, 10µs); DIFS is
	// SIFS + 2 slots, EIFS SIFS + an acknowledgement's airtime + DIFS.
	Slot units.Duration `yaml:"slot"`
	SIFS units.Duration `yaml:"sifs"`
	// CWMin, CWMax bound the contention window in slots (31, 1023).
	CWMin int `yaml:"cw_min"`
	CWMax int `yaml:"cw_max"`
	// RetryLimit is how many times a unicast frame is transmitted, the
	// first included, when its acknowledgement does not come, before
	// "no-ack" (default 7: 802.11's dot11ShortRetryLimit, which counts
	// attempts, as ns-3's MaxSsrc does).
	RetryLimit *int `yaml:"retry_limit"`
	// Overhead is what 802.11 adds to every frame's encoded bytes: MAC
	// header, FCS and LLC/SNAP (default 36 = 24 + 4 + 8).
	Overhead *int `yaml:"overhead"`
	// Queue bounds the frames waiting for the medium at one node
	// (default 500, as ns-3's WifiMacQueue); more are dropped ("queue").
	Queue int `yaml:"queue"`
	// IdleBackoff counts the backoff drawn after a transmission down
	// while the medium is idle, whether or not a frame waits (802.11's
	// post-backoff, as ns-3 does): a frame queued later, the medium idle
	// for DIFS, then goes at once. false (the default): it counts only
	// while a frame waits, so a node forwarding a unicast usually waits
	// a stale backoff at every hop (docs/routing.md).
	IdleBackoff bool `yaml:"idle_backoff,omitempty"`
	// RTSThreshold: a unicast frame of more bytes on the air (MAC
	// header, FCS and LLC/SNAP included) goes after an RTS/CTS exchange,
	// which sets the NAV of the nodes that hear either (802.11's
	// dot11RTSThreshold, ns-3's RtsCtsThreshold). 0, the default: never
	// (ns-3's 65535). The simulator only: real nodes' wire has no RTS or
	// CTS frame.
	RTSThreshold int `yaml:"rts_threshold,omitempty"`
	// LongRetryLimit is how many times a frame sent after RTS/CTS is
	// transmitted before "no-ack" (0: 4, dot11LongRetryLimit, ns-3's
	// MaxSlrc); its RTS is tried retry_limit times (MaxSsrc).
	LongRetryLimit int `yaml:"long_retry_limit,omitempty"`
	// CSRange and InterferenceRange, unit-disk only, in metres (default:
	// radio.range, as ns-3's RangePropagationLossModel): a frame makes
	// the medium busy within CSRange, and interferes, at the power of any
	// frame in range, within InterferenceRange.
	CSRange           float64 `yaml:"cs_range"`
	InterferenceRange float64 `yaml:"interference_range"`
	// CCAThreshold in dBm (log-distance and two-ray): a frame received at
	// this power or more makes the medium busy (default -62, ns-3's
	// CcaEdThreshold); a frame the receiver locks on always does.
	CCAThreshold *float64 `yaml:"cca_threshold"`
	// NoiseFigure in dB (default 7): the noise floor is thermal noise
	// over 22 MHz plus this, -93.6 dBm at the default.
	NoiseFigure *float64 `yaml:"noise_figure"`
	// PreambleWindow is how long after a frame's start the receiver
	// decides whether it detected its preamble (default 4µs); the frame
	// is locked on when its SINR then reaches PreambleThreshold dB
	// (default 4), as ns-3's ThresholdPreambleDetectionModel.
	PreambleWindow    units.Duration `yaml:"preamble_window"`
	PreambleThreshold *float64       `yaml:"preamble_threshold"`
}

// Defaults of the DCF model (802.11b).
const (
	DefaultBitrate           = 1.0
	DefaultPreamble          = 192 * time.Microsecond
	DefaultSlot              = 20 * time.Microsecond
	DefaultSIFS              = 10 * time.Microsecond
	DefaultCWMin             = 31
	DefaultCWMax             = 1023
	DefaultRetryLimit        = 7
	DefaultOverhead          = 36
	DefaultMACQueue          = 500
	DefaultCCAThreshold      = -62.0
	DefaultNoiseFigure       = 7.0
	DefaultPreambleWindow    = 4 * time.Microsecond
	DefaultPreambleThreshold = 4.0
	// AckBytes is an 802.11 acknowledgement's size on the air, and a
	// CTS's; RTSBytes an RTS's.
	AckBytes = 14
	RTSBytes = 20
	// DefaultLongRetryLimit is dot11LongRetryLimit.
	DefaultLongRetryLimit = 4
	// bandwidth of DSSS in Hz, for the thermal noise.
	bandwidth = 22e6
)

// SINRThreshold is the signal-to-interference-and-noise ratio in dB a
// frame's payload needs at a bitrate: where ns-3's DsssErrorRateModel
// gives a bit error rate of 1e-5 (DBPSK at 1 Mbps, DQPSK at 2, CCK at 5.5
// and 11; scripts/ns3/dsss.cc prints them).
func SINRThreshold(mbps float64) float64 {
	switch mbps {
	case 1:
		return -3.08
	case 2:
		return 1.56
	case 5.5:
		return 4.09
	}
	return 7.10
}

func (d *DCFConfig) defaults(rangeM float64) {
	if d.Bitrate == 0 {
		d.Bitrate = DefaultBitrate
	}
	if d.BasicRate == 0 {
		d.BasicRate = DefaultBitrate
	}
	dur := func(v *units.Duration, def time.Duration) {
		if *v == 0 {
			*v = units.Duration(def)
		}
	}
	dur(&d.Preamble, DefaultPreamble)
	dur(&d.Slot, DefaultSlot)
	dur(&d.SIFS, DefaultSIFS)
	dur(&d.PreambleWindow, DefaultPreambleWindow)
	if d.CWMin == 0 {
		d.CWMin = DefaultCWMin
	}
	if d.CWMax == 0 {
		d.CWMax = DefaultCWMax
	}
	if d.Queue == 0 {
		d.Queue = DefaultMACQueue
	}
	intp := func(p **int, def int) {
		if *p == nil {
			*p = &def
		}
	}
	intp(&d.RetryLimit, DefaultRetryLimit)
	intp(&d.Overhead, DefaultOverhead)
	fp := func(p **float64, def float64) {
		if *p == nil {
			*p = &def
		}
	}
	fp(&d.CCAThreshold, DefaultCCAThreshold)
	fp(&d.NoiseFigure, DefaultNoiseFigure)
	fp(&d.PreambleThreshold, DefaultPreambleThreshold)
	if d.CSRange == 0 {
		d.CSRange = rangeM
	}
	if d.InterferenceRange == 0 {
		d.InterferenceRange = rangeM
	}
}

func (d *DCFConfig) validate(propagation string) []error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("radio.dcf.%s: "+format, append([]any{field}, args...)...))
	}
	rate := func(field string, v float64) {
		switch v {
		case 1, 2, 5.5, 11:
		default:
			bad(field, "%g Mbps is not an 802.11b rate (allowed: 1, 2, 5.5, 11)", v)
		}
	}
	rate("bitrate", d.Bitrate)
	rate("basic_rate", d.BasicRate)
	for _, f := range []struct {
		name string
		v    units.Duration
	}{{"preamble", d.Preamble}, {"slot", d.Slot}, {"sifs", d.SIFS}, {"preamble_window", d.PreambleWindow}} {
		if f.v <= 0 {
			bad(f.name, "must be above 0 (got %s)", f.v)
		}
	}
	if d.CWMin < 1 || d.CWMin > 1<<15 {
		bad("cw_min", "must be 1 to 32768 slots (got %d)", d.CWMin)
	}
	if d.CWMax < d.CWMin || d.CWMax > 1<<15 {
		bad("cw_max", "must be at least cw_min %d and at most 32768 (got %d)", d.CWMin, d.CWMax)
	}
	if *d.RetryLimit < 1 || *d.RetryLimit > 64 {
		bad("retry_limit", "must be 1 to 64 transmissions (got %d)", *d.RetryLimit)
	}
	if *d.Overhead < 0 || *d.Overhead > 4096 {
		bad("overhead", "must be 0 to 4096 bytes (got %d)", *d.Overhead)
	}
	if d.Queue < 1 {
		bad("queue", "must be at least 1 frame (got %d)", d.Queue)
	}
	if d.RTSThreshold < 0 || d.RTSThreshold > 65535 {
		bad("rts_threshold", "must be 0 (no RTS/CTS) to 65535 bytes (got %d)", d.RTSThreshold)
	}
	if d.LongRetryLimit < 0 || d.LongRetryLimit > 64 {
		bad("long_retry_limit", "must be 0 (4) to 64 transmissions (got %d)", d.LongRetryLimit)
	}
	if !finite(*d.CCAThreshold) {
		bad("cca_threshold", "must be a finite number of dBm (got %g)", *d.CCAThreshold)
	}
	if !finite(*d.NoiseFigure) || *d.NoiseFigure < 0 {
		bad("noise_figure", "must be 0 dB or above (got %g)", *d.NoiseFigure)
	}
	if !finite(*d.PreambleThreshold) {
		bad("preamble_threshold", "must be a finite number of dB (got %g)", *d.PreambleThreshold)
	}
	if !(d.CSRange > 0) || math.IsInf(d.CSRange, 0) {
		bad("cs_range", "must be above 0 metres (got %g)", d.CSRange)
	}
	if !(d.InterferenceRange > 0) || math.IsInf(d.InterferenceRange, 0) {
		bad("interference_range", "must be above 0 metres (got %g)", d.InterferenceRange)
	}
	return errs
}

// DIFS is SIFS + 2 slots.
func (d *DCFConfig) DIFS() time.Duration { return d.SIFS.D() + 2*d.Slot.D() }

// Airtime is how long a frame of the given encoded bytes occupies the
// air at mbps: the preamble, then the bytes and the 802.11 overhead.
func (d *DCFConfig) Airtime(bytes int, mbps float64) time.Duration {
	bits := float64(8 * (bytes + *d.Overhead))
	return d.Preamble.D() + time.Duration(math.Ceil(bits/mbps*1000))*time.Nanosecond
}

// AckAirtime is an acknowledgement's airtime at the basic rate.
func (d *DCFConfig) AckAirtime() time.Duration {
	return d.Preamble.D() + time.Duration(math.Ceil(8*AckBytes/d.BasicRate*1000))*time.Nanosecond
}

// RTSAirtime is an RTS's airtime at the basic rate.
func (d *DCFConfig) RTSAirtime() time.Duration {
	return d.Preamble.D() + time.Duration(math.Ceil(8*RTSBytes/d.BasicRate*1000))*time.Nanosecond
}

// LongRetries is long_retry_limit with its default.
func (d *DCFConfig) LongRetries() int {
	if d.LongRetryLimit == 0 {
		return DefaultLongRetryLimit
	}
	return d.LongRetryLimit
}

// EIFS is the wait after a frame received in error: SIFS, an
// acknowledgement's airtime and DIFS.
func (d *DCFConfig) EIFS() time.Duration { return d.SIFS.D() + d.AckAirtime() + d.DIFS() }

// NoiseDBm is the noise floor: thermal noise over 22 MHz and the noise
// figure.
func (d *DCFConfig) NoiseDBm() float64 {
	const kT = -174 // dBm/Hz at 290 K
	return kT + 10*math.Log10(bandwidth) + *d.NoiseFigure
}

// Reach is the farthest a frame matters on the DCF medium: unit-disk,
// the farthest of the range, the carrier-sense and the interference
// ranges; otherwise where the mean power falls to the noise floor
// (weaker frames are ignored: they neither interfere nor are sensed).
func (c *Config) Reach(prop Propagation) float64 {
	if c.Propagation == UnitDisk {
		return max(c.Range, c.DCF.CSRange, c.DCF.InterferenceRange)
	}
	floor := c.DCF.NoiseDBm()
	lo, hi := 1.0, 1e7
	for range 100 {
		mid := (lo + hi) / 2
		if prop.Power(mid) >= floor {
			lo = mid
		} else {
			hi = mid
		}
	}
	return max(lo, prop.MaxRange())
}
