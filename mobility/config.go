package mobility

import (
	"errors"
	"fmt"
	"math"
)

// Model names accepted in mobility.model.
const (
	ModelStatic         = "static"
	ModelWaypoints      = "waypoints"
	ModelRandomWaypoint = "random-waypoint"
	// Random waypoint's first state (Config.Start).
	StartUniform     = "uniform"
	StartSteadyState = "steady-state"
	ModelNS2         = "ns2"
)

// DefaultArea is the arena's width and height in metres when none is given.
var DefaultArea = [2]float64{1000, 1000}

// ErrZeroMinSpeed explains why random waypoint needs a minimum speed above
// 0; Validate and RandomWaypoint wrap it, so callers can test errors.Is.
var ErrZeroMinSpeed = errors.New("minimum speed 0 is not allowed: random waypoint with a minimum speed of 0 never reaches a steady state and the mean speed decays toward 0 (Yoon, Liu, Noble, \"Random waypoint considered harmful\"); use a minimum above 0")

// Defaults fills unset fields: model static, area [1000, 1000].
func (c *Config) Defaults() {
	if c.Model == "" {
		c.Model = ModelStatic
	}
	if c.Area == [2]float64{} {
		c.Area = DefaultArea
	}
}

// Validate checks a configuration after Defaults. It reports every problem
// at once (joined), each naming its field path from "mobility." and what is
// allowed.
func (c *Config) Validate() error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("mobility.%s: "+format, append([]any{field}, args...)...))
	}
	switch c.Model {
	case ModelStatic, ModelWaypoints, ModelRandomWaypoint:
	case ModelNS2:
		if c.File == "" {
			bad("file", "required when mobility.model is %s", ModelNS2)
		}
	default:
		bad("model", "%q is unknown (allowed: %s, %s, %s, %s)", c.Model, ModelStatic, ModelWaypoints, ModelRandomWaypoint, ModelNS2)
	}
	if err := checkArea(c.Area); err != nil {
		bad("area", "%v", err)
	}
	if c.Stop < 0 {
		bad("stop", "%v is negative (want 0 for never, or a time)", c.Stop)
	}
	if c.Model == ModelRandomWaypoint {
		if err := checkSpeed(c.Speed); err != nil {
			errs = append(errs, fmt.Errorf("mobility.speed: %w", err))
		}
		if c.Pause < 0 {
			bad("pause", "%v is negative (want 0 or above)", c.Pause)
		}
	}
	if c.Start != "" && c.Start != StartUniform && c.Start != StartSteadyState {
		bad("start", "%q is unknown (allowed: %s, %s)", c.Start, StartUniform, StartSteadyState)
	}
	if c.Start == StartSteadyState && c.Model != ModelRandomWaypoint {
		bad("start", "%s is for mobility.model %s (got %s)", StartSteadyState, ModelRandomWaypoint, c.Model)
	}
	return errors.Join(errs...)
}

func checkArea(a [2]float64) error {
	for _, v := range a {
		if !(v > 0) || math.IsInf(v, 0) {
			return fmt.Errorf("[%g, %g] is not allowed: width and height must be above 0 and finite, in metres", a[0], a[1])
		}
	}
	return nil
}

func checkSpeed(s [2]float64) error {
	lo, hi := s[0], s[1]
	switch {
	case lo == 0 && hi == 0:
		return fmt.Errorf("required for random-waypoint: [min, max] in m/s, min above 0")
	case lo == 0:
		return ErrZeroMinSpeed
	case !(lo > 0) || math.IsInf(lo, 0) || math.IsNaN(hi) || math.IsInf(hi, 0):
		return fmt.Errorf("[%g, %g] is not allowed: speeds must be finite, with min above 0", lo, hi)
	case lo > hi:
		return fmt.Errorf("minimum %g is above maximum %g (want [min, max] with min <= max)", lo, hi)
	}
	return nil
}
