package radio

import (
	"strings"
	"testing"
	"time"

	"manetlab/internal/units"
)

func TestDefaultsFillZeroFields(t *testing.T) {
	c := defaulted(nil)
	if c.Propagation != UnitDisk || c.Range != 250 || c.TxPower != 20 || c.Exponent != 3 ||
		c.Frequency != 2.4e9 || c.AntennaHeight != 1.5 || c.Delay.D() != 2*time.Millisecond {
		t.Errorf("defaults: %+v", c)
	}
	if c.Loss.Model != LossNone || c.Loss.Start != 0.5 || c.Loss.GoodToBad != 0.05 ||
		c.Loss.BadToGood != 0.3 || c.Loss.LossGood != 0 || c.Loss.LossBad == nil || *c.Loss.LossBad != 0.8 {
		t.Errorf("loss defaults: %+v", c.Loss)
	}
	if c.Hello.Period.D() != time.Second || c.Hello.Timeout.D() != 3500*time.Millisecond {
		t.Errorf("hello defaults: %+v", c.Hello)
	}
	if c.Threshold != nil {
		t.Errorf("threshold should stay nil (derived), got %v", *c.Threshold)
	}
	if err := c.Validate(); err != nil {
		t.Errorf("defaults do not validate: %v", err)
	}
}

func TestDefaultsKeepSetFields(t *testing.T) {
	zero := 0.0
	c := defaulted(func(c *Config) {
		c.Propagation = TwoRay
		c.Range = 100
		c.Loss.P = 0.2
		c.Loss.LossBad = &zero
		c.Hello.Period = units.Duration(2 * time.Second)
	})
	if c.Propagation != TwoRay || c.Range != 100 || *c.Loss.LossBad != 0 {
		t.Errorf("Defaults overwrote set fields: %+v", c)
	}
	if c.Loss.Model != LossBernoulli {
		t.Errorf("loss model with p>0 = %q, want bernoulli", c.Loss.Model)
	}
	if c.Hello.Timeout.D() != 7*time.Second {
		t.Errorf("timeout = %s, want 3.5 periods of 2s", c.Hello.Timeout)
	}
	again := c
	again.Defaults()
	if again.Loss.Model != c.Loss.Model || again.Hello != c.Hello || again.Range != c.Range {
		t.Errorf("Defaults is not idempotent")
	}
}

func TestValidateNamesField(t *testing.T) {
	nan := 0.0
	nan = nan / nan
	thr := -80.0
	for _, tc := range []struct {
		edit func(*Config)
		want string
	}{
		{func(c *Config) { c.Propagation = "foo" }, `radio.propagation: "foo" is unknown (allowed: unit-disk, log-distance, two-ray)`},
		{func(c *Config) { c.Range = -1 }, "radio.range: must be above 0"},
		{func(c *Config) { c.Range = nan }, "radio.range: must be above 0"},
		{func(c *Config) { c.Exponent = -2 }, "radio.exponent: must be above 0"},
		{func(c *Config) { c.Frequency = -1 }, "radio.frequency: must be above 0"},
		{func(c *Config) { c.AntennaHeight = -1 }, "radio.antenna_height: must be above 0"},
		{func(c *Config) { c.Shadowing = -1 }, "radio.shadowing: must be 0 or above"},
		{func(c *Config) { c.Shadowing = 4 }, "radio.shadowing: only log-distance"},
		{func(c *Config) { c.Threshold = &thr }, "radio.threshold: only log-distance and two-ray"},
		{func(c *Config) { c.Delay = -1 }, "radio.delay: must be 0 or above"},
		{func(c *Config) { c.Loss.P = 1.5 }, "radio.loss.p: 1.5 is not a probability (want 0 to 1)"},
		{func(c *Config) { c.Loss.Model = LossNone; c.Loss.P = 0.1 }, "radio.loss.p: 0.1 has no effect with radio.loss.model \"none\""},
		{func(c *Config) { c.Loss.Model = "burst" }, `radio.loss.model: "burst" is unknown (allowed: none, bernoulli, distance, gilbert-elliott)`},
		{func(c *Config) { c.Loss.Start = 1 }, "radio.loss.start: 1 is not a fraction"},
		{func(c *Config) { c.Loss.GoodToBad = 2 }, "radio.loss.good_to_bad: 2 is not a probability"},
		{func(c *Config) { c.Loss.BadToGood = -0.1 }, "radio.loss.bad_to_good: -0.1 is not a probability"},
		{func(c *Config) { c.Loss.LossGood = 3 }, "radio.loss.loss_good: 3 is not a probability"},
		{func(c *Config) { v := 1.1; c.Loss.LossBad = &v }, "radio.loss.loss_bad: 1.1 is not a probability"},
		{func(c *Config) { c.Hello.Period = -1 }, "radio.hello.period: must be above 0"},
		{func(c *Config) { c.Hello.Timeout = c.Hello.Period }, "radio.hello.timeout: 1s must exceed hello.period 1s"},
	} {
		c := defaulted(nil)
		tc.edit(&c)
		err := c.Validate()
		if err == nil {
			t.Errorf("want error %q, got none", tc.want)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %q does not contain %q", err, tc.want)
		}
	}
}

func TestValidateReportsAll(t *testing.T) {
	c := defaulted(nil)
	c.Range = 0
	c.Loss.P = 7
	err := c.Validate()
	if err == nil || !strings.Contains(err.Error(), "radio.range") || !strings.Contains(err.Error(), "radio.loss.p") {
		t.Errorf("want both radio.range and radio.loss.p in %v", err)
	}
	for _, p := range []string{LogDistance, TwoRay} {
		thr := -90.0
		c := defaulted(func(c *Config) { c.Propagation = p; c.Threshold = &thr })
		if err := c.Validate(); err != nil {
			t.Errorf("%s with a threshold: %v", p, err)
		}
	}
}
