package reliable

import (
	"fmt"
	"time"

	"manetlab/protocol"
)

// Config tunes a Channel. The zero value is the default configuration.
type Config struct {
	// Timeout is the first retransmission timeout; it doubles on every
	// retry. Zero means DefaultTimeout.
	Timeout time.Duration
	// Retries is how many retransmissions go unanswered before a peer is
	// declared unreachable. Zero means DefaultRetries; NoRetries (any
	// negative value) declares it at the first timeout.
	Retries int
	// Timer names this channel's timers, so that the embedding protocol
	// tells them apart from its own. Empty means DefaultTimer.
	Timer string
	// RouteDelay is protocol.Config.RouteDelay: how long a message may
	// wait for its route before it travels (AODV's expanding ring search;
	// zero under flooding). The first wait of every transmission (the
	// timeout before the first retransmission) is Timeout + RouteDelay,
	// so that a message waiting for its route is not sent again while it
	// waits; the retransmissions after it wait Timeout doubled as before.
	// Under AODV every hop is acknowledged and retransmitted by the link,
	// so an end-to-end loss means a broken route, whose repair is a new
	// discovery: a retransmission sooner would wait for it too.
	RouteDelay time.Duration
}

// The defaults of Config.
const (
	DefaultTimeout = 200 * time.Millisecond
	DefaultRetries = 5
	DefaultTimer   = "reliable"
	NoRetries      = -1
)

// withDefaults fills in the zero fields and turns NoRetries into zero.
func (c Config) withDefaults() Config {
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	switch {
	case c.Retries == 0:
		c.Retries = DefaultRetries
	case c.Retries < 0:
		c.Retries = 0
	}
	if c.Timer == "" {
		c.Timer = DefaultTimer
	}
	return c
}

// RTO is the first retransmission timeout, the default filled in.
func (c Config) RTO() time.Duration { return c.withDefaults().Timeout }

// GiveUp is how long the channel takes to declare a silent peer
// unreachable: the first transmission and every retransmission wait a
// timeout that doubles each time, the first one RouteDelay longer,
// rto·(2^(retries+1)-1) + RouteDelay (12.6 s with the defaults, 200ms and
// 5 retries, under flooding; 14.52 s under AODV at its defaults).
func (c Config) GiveUp() time.Duration {
	c = c.withDefaults()
	return c.Timeout*time.Duration(1<<(min(c.Retries, 20)+1)-1) + max(c.RouteDelay, 0)
}

// FirstWait is the wait before the first retransmission: the timeout
// plus the wait for a route, Timeout + RouteDelay.
func (c Config) FirstWait() time.Duration {
	c = c.withDefaults()
	return c.Timeout + max(c.RouteDelay, 0)
}

// ParamsConfig reads the scenario's "rto" (a duration) and "retries" (a
// non-negative integer; 0 for none) with the defaults of Config. A bad
// value is recorded in r, naming the field, and its default is used;
// r.Err reports it.
func ParamsConfig(r *protocol.ParamReader) Config {
	cfg := Config{Timeout: r.Duration("rto", DefaultTimeout), Retries: r.Int("retries", DefaultRetries)}
	if cfg.Timeout == 0 {
		v, _ := r.Any("rto")
		r.Reject("rto", v, `a positive duration such as "200ms"`)
		cfg.Timeout = DefaultTimeout
	}
	switch {
	case cfg.Retries < 0:
		r.Reject("retries", cfg.Retries, "a non-negative integer")
		cfg.Retries = DefaultRetries
	case cfg.Retries == 0:
		cfg.Retries = NoRetries
	}
	return cfg
}

// WarnHops is how many hop times the first retransmission timeout should
// reach at least: a round trip over one hop takes two, and the DCF
// medium's backoff and retries stretch them.
const WarnHops = 4

// HopWarning warns, with the figures, when c's first retransmission
// timeout is shorter than WarnHops hop times (hop is
// protocol.Config.HopDelay: radio.delay on the ideal medium, the DCF
// medium's hop time, 1.95 ms at 1 Mbps): the channel would retransmit
// messages whose acknowledgement is still on its way. name prefixes the
// text (the protocol). Nil when hop is unknown (zero) or the timeout is
// long enough, as the default 200 ms always is.
func HopWarning(name string, c Config, hop time.Duration) *protocol.Warning {
	rto := c.RTO()
	if hop <= 0 || rto >= WarnHops*hop {
		return nil
	}
	return &protocol.Warning{Text: fmt.Sprintf("%s: protocol.params.rto %v, but a round trip over one hop takes %v at a hop time of %v "+
		"(radio.delay, or the DCF medium's exchange), and rto should be at least %d hop times (%v): "+
		"the channel will retransmit messages whose acknowledgements are still on their way", name, rto, 2*hop, hop, WarnHops, WarnHops*hop)}
}
