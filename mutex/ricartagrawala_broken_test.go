package mutex

import "manetlab/protocol"

// raEarlyName is the Ricart-Agrawala that replies to a request at once
// even while it holds the section (explore/brokentest's test/ra-early),
// registered again for this package's internal tests, which cannot import
// brokentest (it imports mutex).
const raEarlyName = "mutex/test-ra-early"

func init() {
	spec, err := protocol.Lookup(RicartAgrawala)
	if err != nil {
		panic(err)
	}
	spec.Name = raEarlyName
	spec.Summary = "test only: a Ricart-Agrawala that replies while it holds the section"
	spec.New = func(cfg protocol.Config) (protocol.Process, error) {
		return NewRicartAgrawalaRule(cfg, func(holds, earlier bool) bool { return earlier })
	}
	protocol.Register(spec)
}
