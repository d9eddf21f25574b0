package netstack

import (
	"math"
	"math/rand/v2"
	"time"

	"manetlab/radio"
)

// DCF is the 802.11 DCF medium's constants as the stacks use them
// (radio.mac dcf; docs/radio.md, "The medium"). A nil *DCF in Config is
// the ideal medium.
type DCF struct {
	radio.DCFConfig
	difs, eifs, ackAir, ackWait time.Duration
	rtsAir                      time.Duration
	noise                       float64 // noise floor, mW
	preamble                    float64 // preamble detection threshold, linear
	dataSINR, basicSINR         float64 // payload thresholds, linear
}

// NewDCF is the model of c, which has had its defaults applied.
func NewDCF(c radio.DCFConfig) *DCF {
	d := &DCF{DCFConfig: c, difs: c.DIFS(), eifs: c.EIFS(), ackAir: c.AckAirtime(), rtsAir: c.RTSAirtime()}
	// The acknowledgement must have started SIFS after the frame's end
	// and ended an ack's airtime later; a slot and the propagation both
	// ways are the slack, as ns-3's AckTimeout allows.
	d.ackWait = c.SIFS.D() + d.ackAir + c.Slot.D() + 2*SignalDelay
	d.noise = MW(c.NoiseDBm())
	d.preamble = linear(*c.PreambleThreshold)
	d.dataSINR = linear(radio.SINRThreshold(c.Bitrate))
	d.basicSINR = linear(radio.SINRThreshold(c.BasicRate))
	return d
}

// SignalDelay is when a frame starts at every receiver after its sender
// put it on the air: light crosses 300 m in 1 µs. (ns-3 takes distance/c;
// below the 4 µs preamble window and the 20 µs slot the difference does
// not change who collides.)
const SignalDelay = time.Microsecond

// Airtime is how long f occupies the air: unicast frames at the bitrate,
// everything else at the basic rate; an acknowledgement is 802.11's.
func (d *DCF) Airtime(f *Frame) time.Duration {
	switch {
	case f.Type == Ack || f.Type == CTS:
		return d.ackAir
	case f.Type == RTS:
		return d.rtsAir
	case f.Type.Acknowledged():
		return d.DCFConfig.Airtime(WireBytes(f), d.Bitrate)
	}
	return d.DCFConfig.Airtime(WireBytes(f), d.BasicRate)
}

// HopTime is one hop of an acknowledged frame at an idle medium: DIFS,
// the mean first backoff, a 100-byte frame at the bitrate, SIFS and the
// acknowledgement.
func (d *DCF) HopTime() time.Duration {
	return d.difs + time.Duration(d.CWMin)*d.Slot.D()/2 + d.DCFConfig.Airtime(100, d.Bitrate) + d.SIFS.D() + d.ackAir
}

// threshold is the SINR the payload of f needs.
func (d *DCF) threshold(f *Frame) float64 {
	if f.Type.Acknowledged() {
		return d.dataSINR
	}
	return d.basicSINR
}

// MW is dBm in milliwatts.
func MW(dBm float64) float64    { return math.Pow(10, dBm/10) }
func linear(dB float64) float64 { return math.Pow(10, dB/10) }

// Signal is a frame on the air at one receiver, as the driver tells its
// stack with SignalStart.
type Signal struct {
	// ID names this transmission at the receiver until SignalEnd.
	ID    uint64
	Frame *Frame
	// Start is when the frame reached this receiver (0: now). The
	// simulator tells the stack at that instant; a real node later, when
	// the datagram arrives, and gives the start its sender stamped, so
	// that frames are judged by when they were on the air.
	Start time.Duration
	// End is when the frame leaves the air at this receiver.
	End time.Duration
	// Power is the frame's received power in mW (MW converts dBm).
	Power float64
	// Sensed: the frame alone makes the medium busy (unit-disk: within
	// the carrier-sense range; otherwise at least the CCA threshold).
	Sensed bool
	// Outcome is the radio's verdict on the frame alone: Received, Lost
	// (decodable, but the loss model drops it) or OutOfRange (energy
	// only: it interferes and may be sensed, never received).
	Outcome Outcome
}

// fate is what a receiver made of a signal so far.
type fate uint8

const (
	fateEnergy     fate = iota // out of range: interference only
	fateCandidate              // its preamble is being detected
	fateLocked                 // the receiver is receiving it
	fateCollision              // lost: another frame was on the air
	fateHalfDuplex             // lost: the receiver transmitted
)

// rxSignal is what a receiver keeps of a Signal until its end: no more,
// so that a receiver's state is few bytes to fetch.
type rxSignal struct {
	id      uint64
	frame   *Frame
	p       float64 // power, mW
	sensed  bool
	outcome Outcome
	fate    fate
}

// air is one receiver's view of the medium: the frames on the air at
// it, the one it is locked on, its own transmission, and whether the
// medium is busy (carrier sense). It is read and written at every frame
// start and end within reach, so it is kept small and near the head of
// the Stack (a large simulation's time goes mostly to fetching memory).
type air struct {
	sigs    []rxSignal
	total   float64 // power of sigs, mW
	lock    uint64  // ID of the frame locked on; 0: none
	lockMin float64 // its lowest SINR so far, linear
	window  time.Duration
	txStart time.Duration // this node's last transmission: its start
	txEnd   time.Duration // and its end
	sensed  int32         // sigs with Sensed
	nav     time.Duration // virtual carrier sense: busy until then (RTS/CTS heard)
	busy    bool
	eifs    bool // the last reception failed: defer EIFS
	// sigBuf holds sigs while they are few, as they mostly are: beside
	// the rest rather than in a cache line of their own.
	sigBuf [2]rxSignal
}

// ifs is the wait after the medium became idle before backoff counts.
func (s *Stack) ifs() time.Duration {
	if s.air.eifs {
		return s.cfg.MAC.eifs
	}
	return s.cfg.MAC.difs
}

// find is the index of signal id in a.sigs, or -1.
func (a *air) find(id uint64) int {
	for i := range a.sigs {
		if a.sigs[i].id == id {
			return i
		}
	}
	return -1
}

// resolve ends the preamble window if it is over at now: the strongest
// candidate is locked on if its SINR then reaches the preamble
// threshold; the others, or all, are lost.
func (s *Stack) resolve(now time.Duration) {
	a := &s.air
	if a.window == 0 || now < a.window {
		return
	}
	a.window = 0
	best := -1
	for i := range a.sigs {
		if a.sigs[i].fate == fateCandidate && (best < 0 || a.sigs[i].p > a.sigs[best].p) {
			best = i
		}
	}
	if best < 0 {
		return
	}
	b := &a.sigs[best]
	sinr := s.sinr(b.p)
	for i := range a.sigs {
		if a.sigs[i].fate == fateCandidate {
			a.sigs[i].fate = fateCollision
		}
	}
	if sinr >= s.cfg.MAC.preamble {
		b.fate, a.lock, a.lockMin = fateLocked, b.id, sinr
	}
}

// sinr is the SINR of a frame of power p (mW) on the air now.
func (s *Stack) sinr(p float64) float64 {
	return p / (s.cfg.MAC.noise + max(s.air.total-p, 0))
}

// SignalStart tells the stack that a frame reached its radio at
// sig.Start (DCF medium only): it is locked on, or interferes with what
// is. A frame told late is judged by its start: a preamble window still
// open then takes it as a candidate, and it is lost to half duplex if it
// overlapped this node's last transmission. What it changes, carrier
// sense above all, changes from now.
func (s *Stack) SignalStart(sig Signal) {
	if s.stopped {
		return
	}
	now := s.now()
	at := now
	if sig.Start != 0 {
		at = sig.Start
	}
	s.resolve(at)
	a := &s.air
	r := rxSignal{id: sig.ID, frame: sig.Frame, p: sig.Power, sensed: sig.Sensed, outcome: sig.Outcome}
	a.total += r.p
	if sig.Sensed {
		a.sensed++
	}
	switch {
	case sig.Outcome == OutOfRange:
	case at < a.txEnd && sig.End > a.txStart:
		r.fate = fateHalfDuplex
	case a.lock != 0:
		r.fate = fateCollision
	default:
		r.fate = fateCandidate
		// The window counts from the earliest candidate's start: a
		// frame told late may have started before the one that opened
		// it (never in the simulator, which tells frames in order).
		if w := at + s.cfg.MAC.PreambleWindow.D(); a.window == 0 || w < a.window {
			a.window = w
		}
	}
	if len(a.sigs) == cap(a.sigs) && cap(s.sigSpill) > len(a.sigs) {
		s.sigSpill = append(s.sigSpill[:0], a.sigs...)
		a.sigs = s.sigSpill
	}
	a.sigs = append(a.sigs, r)
	if a.lock != 0 {
		l := &a.sigs[a.find(a.lock)]
		a.lockMin = min(a.lockMin, s.sinr(l.p))
	}
	s.carrier(now)
}

// SignalEnd tells the stack that frame id left the air at its radio now:
// a frame it was locked on is received if its SINR never fell below the
// threshold of its bitrate. It returns the frame's outcome and what the
// stack made of it when the frame was for this node (broadcast, or sent
// to it), and 0 otherwise.
func (s *Stack) SignalEnd(id uint64) (Outcome, Verdict) {
	if s.stopped {
		return 0, Handled
	}
	now := s.now()
	s.resolve(now)
	a := &s.air
	i := a.find(id)
	if i < 0 {
		return 0, Handled
	}
	r := a.sigs[i]
	a.sigs = append(a.sigs[:i], a.sigs[i+1:]...)
	a.total -= r.p
	if len(a.sigs) == 0 {
		a.total = 0 // no rounding left behind
		if cap(a.sigs) > len(a.sigBuf) {
			s.sigSpill = a.sigs[:0] // for the next time it grows out
		}
		a.sigs = a.sigBuf[:0] // back beside the rest, if it grew out
	}
	if r.sensed {
		a.sensed--
	}
	var o Outcome
	switch r.fate {
	case fateLocked:
		a.lock = 0
		o = r.outcome
		if a.lockMin < s.cfg.MAC.threshold(r.frame) {
			o = Collision
		}
		a.eifs = o != Received
		if o == Received && (r.frame.Type == RTS || r.frame.Type == CTS) && r.frame.To != s.self {
			s.setNAV(now, now+r.frame.Lifetime)
		}
	case fateCollision:
		o = Collision
	case fateHalfDuplex:
		o = HalfDuplex
	}
	s.carrier(now)
	if o != 0 && (r.frame.To < 0 || r.frame.To == s.self) {
		return o, s.Heard(r.frame, o)
	}
	return 0, Handled
}

// Warm reads what SignalStart and SignalEnd read of the stack first, and
// returns a value that depends on it: a driver that is about to visit
// many stacks in turn calls Warm on all of them first, so that the CPU
// overlaps their cache misses, which the visits would take one by one
// (on a large simulation, most of the time of a frame).
func (s *Stack) Warm() uint64 {
	a := &s.air
	v := uint64(a.window) + uint64(a.sigBuf[0].fate)
	if s.stopped {
		v++
	}
	return v
}

// txStart marks this node's own transmission until end: it hears
// nothing meanwhile.
func (s *Stack) txStart(now, end time.Duration) {
	s.resolve(now)
	a := &s.air
	for i := range a.sigs {
		if f := a.sigs[i].fate; f == fateCandidate || f == fateLocked {
			a.sigs[i].fate = fateHalfDuplex
		}
	}
	a.lock, a.window, a.txStart, a.txEnd = 0, 0, now, end
	s.carrier(now)
}

// carrier updates whether the medium is busy at this node and tells the
// MAC when that changes.
func (s *Stack) carrier(now time.Duration) {
	a := &s.air
	busy := now < a.txEnd || a.lock != 0 || a.window != 0 || a.sensed > 0 || now < a.nav
	if busy == a.busy {
		return
	}
	a.busy = busy
	if busy {
		s.mac.busy(s, now)
		return
	}
	s.mac.idle(s, now)
}

// Radio is the DCF medium's model of a frame at one receiver, which both
// drivers apply (the simulator when a frame starts, a real node when its
// datagram arrives): its received power, whether it makes the medium busy,
// and the radio's verdict on it alone.
type Radio struct {
	prop      radio.Propagation
	loss      radio.Loss
	unitDisk  bool
	cs, ifr   float64 // unit-disk: the carrier-sense and interference ranges
	cca       float64 // otherwise: the CCA threshold, dBm
	maxRange  float64 // the propagation's: beyond, energy only
	unitPower float64 // unit-disk: every frame's power, mW
	// Reach is the farthest a frame matters to a receiver
	// (radio.Config.Reach): farther, it is not on the air there at all.
	Reach float64
}

// NewRadio is the receivers' model of the DCF medium of c (defaults
// applied), with c's propagation and loss models.
func NewRadio(c radio.Config, prop radio.Propagation, loss radio.Loss) *Radio {
	return &Radio{prop: prop, loss: loss, unitDisk: c.Propagation == radio.UnitDisk,
		cs: c.DCF.CSRange, ifr: c.DCF.InterferenceRange, cca: *c.DCF.CCAThreshold,
		maxRange: prop.MaxRange(), Reach: c.Reach(prop), unitPower: MW(prop.Power(0))}
}

// Signal sets sig's Power (mW), Sensed and Outcome for a frame from node from
// at node to, d metres away (within Reach): unit-disk, sensed within the
// carrier-sense range and interfering, at the transmit power, within the
// interference range; otherwise at its mean power, sensed from the CCA
// threshold. Within the propagation's maximum range the radio decides
// (radio.Hear, drawing from rng, the receiver's stream); beyond, the
// frame is energy only (OutOfRange).
func (m *Radio) Signal(sig *Signal, from, to int, d float64, rng *rand.Rand) {
	sig.Outcome = OutOfRange
	if m.unitDisk {
		sig.Sensed = d <= m.cs
		sig.Power = 0 // sensed, but no interference
		if d <= m.ifr {
			sig.Power = m.unitPower
		}
	} else {
		dBm := m.prop.Power(d)
		sig.Sensed = dBm >= m.cca
		sig.Power = MW(dBm)
	}
	if d <= m.maxRange {
		sig.Outcome = radio.Hear(m.prop, m.loss, from, to, d, rng)
	}
}
