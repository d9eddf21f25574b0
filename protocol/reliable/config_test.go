package reliable

import (
	"strings"
	"testing"
	"time"

	"manetlab/protocol"
)

func TestParamsConfig(t *testing.T) {
	for _, c := range []struct {
		p    protocol.Params
		want Config
	}{
		{nil, Config{Timeout: 200 * time.Millisecond, Retries: 5}},
		{protocol.Params{"rto": "50ms", "retries": 3}, Config{Timeout: 50 * time.Millisecond, Retries: 3}},
		{protocol.Params{"retries": 0}, Config{Timeout: 200 * time.Millisecond, Retries: NoRetries}},
	} {
		r := c.p.Reader()
		if got := ParamsConfig(r); got != c.want || r.Err() != nil {
			t.Errorf("%v: %+v, %v; want %+v", c.p, got, r.Err(), c.want)
		}
	}
}

func TestParamsConfigErrorsNameTheField(t *testing.T) {
	for _, c := range []struct {
		p    protocol.Params
		want string
	}{
		{protocol.Params{"retries": -1}, "protocol.params.retries: -1 is not a non-negative integer"},
		{protocol.Params{"retries": "many"}, "protocol.params.retries: many is not an integer"},
		{protocol.Params{"rto": "0s"}, `protocol.params.rto: 0s is not a positive duration such as "200ms"`},
		{protocol.Params{"rto": "soon"}, "protocol.params.rto: soon is not a non-negative duration"},
		{protocol.Params{"rtto": "1s"}, "protocol.params.rtto: unknown parameter (known: retries, rto)"},
	} {
		r := c.p.Reader()
		cfg := ParamsConfig(r)
		if err := r.Err(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.p, err, c.want)
		}
		if cfg.Timeout <= 0 || cfg.Retries <= 0 {
			t.Errorf("%v: a bad value left %+v, want the defaults", c.p, cfg)
		}
	}
}

func TestZeroConfigTakesDefaults(t *testing.T) {
	if got := (Config{}).withDefaults(); got != (Config{Timeout: DefaultTimeout, Retries: DefaultRetries, Timer: DefaultTimer}) {
		t.Fatalf("defaults %+v", got)
	}
	if got := (Config{Retries: NoRetries}).withDefaults(); got.Retries != 0 {
		t.Fatalf("NoRetries gave %d retries", got.Retries)
	}
}
