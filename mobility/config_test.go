package mobility

import (
	"strings"
	"testing"
)

func TestDefaults(t *testing.T) {
	var c Config
	c.Defaults()
	if c.Model != ModelStatic || c.Area != [2]float64{1000, 1000} {
		t.Fatalf("Defaults = %+v", c)
	}
	if err := c.Validate(); err != nil {
		t.Fatalf("defaults do not validate: %v", err)
	}
	c = Config{Model: ModelNS2, File: "x.ns2", Area: [2]float64{5, 6}}
	c.Defaults()
	if c.Model != ModelNS2 || c.Area != [2]float64{5, 6} {
		t.Fatalf("Defaults overrode set fields: %+v", c)
	}
}

func TestValidate(t *testing.T) {
	good := Config{Model: ModelRandomWaypoint, Area: [2]float64{100, 100}, Speed: [2]float64{1, 10}}
	if err := good.Validate(); err != nil {
		t.Fatalf("good config: %v", err)
	}
	for name, tc := range map[string]struct {
		edit func(*Config)
		want []string
	}{
		"unknown model": {func(c *Config) { c.Model = "brownian" }, []string{`mobility.model: "brownian" is unknown`, "static, waypoints, random-waypoint, ns2"}},
		"min speed 0": {func(c *Config) { c.Speed[0] = 0 }, []string{
			"mobility.speed: minimum speed 0 is not allowed: random waypoint with a minimum speed of 0 never reaches a steady state",
			`Yoon, Liu, Noble, "Random waypoint considered harmful"`, "use a minimum above 0"}},
		"no speed":       {func(c *Config) { c.Speed = [2]float64{} }, []string{"mobility.speed: required"}},
		"min above max":  {func(c *Config) { c.Speed = [2]float64{3, 1} }, []string{"mobility.speed: minimum 3 is above maximum 1"}},
		"negative speed": {func(c *Config) { c.Speed = [2]float64{-1, 1} }, []string{"mobility.speed:", "min above 0"}},
		"zero width":     {func(c *Config) { c.Area[0] = 0 }, []string{"mobility.area: [0, 100] is not allowed", "above 0"}},
		"negative area":  {func(c *Config) { c.Area[1] = -5 }, []string{"mobility.area:"}},
		"ns2 no file":    {func(c *Config) { c.Model = ModelNS2 }, []string{"mobility.file: required"}},
		"two problems":   {func(c *Config) { c.Area[0] = 0; c.Speed[0] = 0 }, []string{"mobility.area:", "mobility.speed: minimum speed 0"}},
	} {
		c := good
		tc.edit(&c)
		err := c.Validate()
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", name, err, w)
			}
		}
	}
	// Speed only matters to random waypoint.
	static := Config{Model: ModelStatic, Area: [2]float64{1, 1}}
	if err := static.Validate(); err != nil {
		t.Errorf("static without speed: %v", err)
	}
}
