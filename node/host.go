package node

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"net/netip"
	"sync"
	"time"

	"manetlab/mobility"
	"manetlab/netstack"
	"manetlab/node/link"
	"manetlab/node/wire"
	"manetlab/protocol"
	"manetlab/radio"
	"manetlab/scenario"
	"manetlab/trace"
)

// Host is a running node process: the nodes it hosts, its sockets and its
// event loop.
type Host struct {
	opt   Options
	s     *scenario.Scenario
	spec  protocol.Spec
	codec *wire.Codec
	runID uint64
	// stopEarly: the process was stopped before its start was known
	// (Options.StartLater); lateStart is how long after the run's start
	// the start reached it, if after.
	stopEarly bool
	lateStart time.Duration
	startLoad [2]string // machineLoad then
	// addr is where this process's frames leave from (Stats.Addr).
	addr netip.Addr
	// scenarioHash is the resolved scenario's (scenario.Hash), for the
	// traces' headers.
	scenarioHash string
	members      []scenario.Member
	ids          []protocol.NodeID       // every member, ascending
	index        map[protocol.NodeID]int // member ID -> mobility index
	mob          mobility.Model
	prop         radio.Propagation
	loss         radio.Loss

	hello, timeout time.Duration

	data, ctrl *link.Conn
	nodes      []*hosted // in the order of opt.IDs
	byID       map[protocol.NodeID]*hosted

	// clock is the run clock (Env.Now's), dilated Options.Dilation
	// times; end is the scenario's duration on it.
	clock runClock
	end   time.Duration

	frames  chan []rxFrame // batches of frames from the readers
	quit    chan struct{}  // closed when the loop stops: readers give up
	readers sync.WaitGroup
	sched   schedule
	timer   *time.Timer
	timerID uint64
	senders []netstack.Window // per member index: duplicate suppression
	locs    []location        // per member index: latest location frame
	ext     float64           // the scenario's extent in metres (see extent)
	net     *netstack.Config  // what the hosted nodes' stacks share
	// maxRange is the propagation model's: beyond it nothing is heard.
	maxRange float64
	// air is the DCF medium's model at each receiver (radio.mac dcf;
	// nil: the ideal medium), airID numbers the frames on the air.
	air   *netstack.Radio
	airID uint64
	// rx is the frame being received, while the hosted nodes hear it, and
	// rxStamped says whether the receiver's clock merged its clock yet.
	rx        *rxFrame
	rxStamped bool
	// virt, when not nil, replaces the sockets and the clock: an
	// in-memory medium in virtual time (tests of parity with sim).
	virt    *virtualNet
	txbuf   []byte
	unreach []wire.Unreachable // Transmit's scratch for a route error's list
	line    trace.Event        // emit's scratch event
	lineHLC trace.HLC          // and its clock reading

	cnt     *counters
	log     *rateLog
	stopped bool

	done chan struct{}
	res  Result
	err  error // the first trace write error
}

// Result is what a finished Host reports.
type Result struct {
	// Stats are the final counters.
	Stats Stats
	// Leaders maps each hosted node to the leader it last noted (None:
	// no leader).
	Leaders map[protocol.NodeID]protocol.NodeID
}

// rxFrame is a datagram that passed decoding and the run check, on its way
// from a reader goroutine to the loop. Its message is decoded once, when
// first needed.
type rxFrame struct {
	f       wire.Frame
	src     netip.Addr     // where the datagram came from (zero: not known)
	nf      netstack.Frame // the stack's view of f
	msg     protocol.Message
	decoded bool
	bad     bool
}

// Run starts a Host and waits for it to finish: at the end of the
// scenario's duration, or when ctx is cancelled.
func Run(ctx context.Context, opt Options) (*Result, error) {
	h, err := Start(ctx, opt)
	if err != nil {
		return nil, err
	}
	return h.Wait()
}

// Start opens the sockets and trace files, boots the hosted processes
// (at Options.Start, if that is still to come) and returns once the node
// process is ready: frames are being read and the loop runs. Cancel ctx to
// stop early; the traces then end as they do at the end of the duration.
func Start(ctx context.Context, opt Options) (*Host, error) {
	h, err := newHost(opt)
	if err != nil {
		return nil, err
	}
	if err := h.open(); err != nil {
		h.closeAll()
		return nil, err
	}
	if opt.StartLater != nil {
		// Frames wait in the sockets' buffers until the start is known:
		// the run's id on the wire and the run clock depend on it.
		go func() {
			select {
			case ns, ok := <-opt.StartLater:
				if !ok {
					h.stopEarly = true
					break
				}
				h.setStart(ns)
				if h.now() >= 0 {
					// The start came late: boot now, and say by how much.
					h.lateStart = h.clock.wallSince()
					h.startLoad = machineLoad()
					if err := h.bootAll(); err != nil {
						h.fail(err)
						h.stopEarly = true
					}
				}
			case <-ctx.Done():
			}
			h.run(ctx)
		}()
		return h, nil
	}
	if h.now() >= 0 {
		if err := h.bootAll(); err != nil {
			h.closeAll()
			return nil, err
		}
	}
	h.run(ctx)
	return h, nil
}

// setStart sets the run's start (Unix ns) of a Host started with
// Options.StartLater, before its readers and loop run.
func (h *Host) setStart(ns int64) {
	h.opt.Start = ns
	h.runID = wire.RunIDAt(h.opt.Run, ns)
	h.clock = newRunClock(wallNow(), ns, h.opt.Dilation)
}

// run starts the readers and the loop.
func (h *Host) run(ctx context.Context) {
	for _, c := range []*link.Conn{h.data, h.ctrl} {
		h.readers.Add(1)
		go h.read(c)
	}
	go h.loop(ctx)
}

func newHost(opt Options) (*Host, error) {
	s := opt.Scenario
	switch {
	case s == nil:
		return nil, errors.New("node: no scenario")
	case len(opt.IDs) == 0:
		return nil, errors.New("node: no node to host (--id or --ids)")
	case opt.Out == "":
		return nil, errors.New("node: no trace directory (--out)")
	case opt.Run == "":
		return nil, errors.New("node: no run name (--run)")
	}
	if err := checkDilation(opt.Dilation); err != nil {
		return nil, fmt.Errorf("node: %w", err)
	}
	if k := time.Duration(max(opt.Dilation, 1)); s.Duration.D() > math.MaxInt64/k {
		return nil, fmt.Errorf("node: dilation %d: the scenario's duration %v would last longer than the clock can count", k, s.Duration.D())
	}
	if opt.Group == "" {
		opt.Group = DefaultGroup
	}
	if opt.Control == "" {
		opt.Control = DefaultControl
	}
	spec, err := protocol.LookupFor(s.Protocol.Name, s.Protocol.Params)
	if err != nil {
		return nil, fmt.Errorf("%s: protocol.name: %w", s.Source("protocol.name: "), err)
	}
	if err := s.CheckCommands(spec); err != nil {
		return nil, fmt.Errorf("%s: %w", s.Path, err)
	}
	if err := s.CheckTopology(); err != nil {
		return nil, err
	}
	codec, err := wire.NewCodec(spec)
	if err != nil {
		return nil, err
	}
	mob, err := s.MobilityModel()
	if err != nil {
		return nil, err
	}
	prop, err := radio.NewPropagation(s.Radio)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Path, err)
	}
	loss, err := radio.NewLoss(s.Radio)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Path, err)
	}
	hash, err := s.Hash()
	if err != nil {
		return nil, err
	}
	h := &Host{
		opt: opt, s: s, spec: spec, codec: codec, runID: wire.RunIDAt(opt.Run, opt.Start), scenarioHash: hash,
		members: s.Members(), ids: s.MemberIDs(), index: map[protocol.NodeID]int{},
		mob: mob, prop: prop, loss: loss,
		hello: s.Radio.Hello.Period.D(), timeout: s.Radio.Hello.Timeout.D(),
		byID: map[protocol.NodeID]*hosted{},
		end:  s.Duration.D(),
		// At most 16 batches of frameBatch frames wait: 1,024 frames, as
		// many as waited one by one before batches; the socket's
		// receive buffer holds the rest.
		frames: make(chan []rxFrame, 16),
		quit:   make(chan struct{}),
		timer:  time.NewTimer(time.Hour),
		log:    newRateLog(opt.Log, LogPeriod),
		done:   make(chan struct{}),
	}
	if mob.Len() < len(h.members) {
		return nil, fmt.Errorf("%s: mobility gives %d nodes, the scenario has %d", s.Path, mob.Len(), len(h.members))
	}
	for _, m := range h.members {
		h.index[m.ID] = m.Index
	}
	byIndex := make([]protocol.NodeID, len(h.members))
	for _, m := range h.members {
		byIndex[m.Index] = m.ID
	}
	h.cnt = newCounters(byIndex)
	h.codec = h.codec.WithBounds(h.bodyBounds())
	h.ext = h.extent()
	h.senders = make([]netstack.Window, len(h.members))
	ids := make([]protocol.NodeID, len(h.members))
	for _, m := range h.members {
		ids[m.Index] = m.ID
	}
	h.net = netstack.NewConfig(ids, h.hello, h.timeout, s.Radio.Delay.D(), s.Trace.Hello)
	s.Routing.Apply(h.net)
	h.maxRange = prop.MaxRange()
	if s.Radio.MAC == radio.MACDCF {
		if s.Radio.DCF.RTSThreshold > 0 {
			return nil, fmt.Errorf("%s: radio.dcf.rts_threshold: RTS/CTS is simulated only (manetlab sim); real nodes' wire has no RTS or CTS frame", s.Path)
		}
		h.net.MAC = netstack.NewDCF(s.Radio.DCF)
		h.air = netstack.NewRadio(s.Radio, prop, loss)
	}
	h.locs = make([]location, len(h.members))
	for _, id := range opt.IDs {
		i, ok := h.index[id]
		if !ok {
			return nil, fmt.Errorf("%s: node %d is not in the scenario (nodes: %d of them, IDs %d to %d)",
				s.Path, id, len(h.ids), h.ids[0], h.ids[len(h.ids)-1])
		}
		if h.byID[id] != nil {
			return nil, fmt.Errorf("node %d listed twice", id)
		}
		n := &hosted{id: id, idx: i, value: h.members[i].Value}
		h.nodes = append(h.nodes, n)
		h.byID[id] = n
	}
	// Build one process up front so that bad protocol parameters fail
	// before any socket or file is opened. Its store is a scratch one, so
	// that nothing it puts reaches the node's file.
	_, err = spec.New(protocol.Config{ID: h.nodes[0].id, Value: h.nodes[0].value, Members: h.ids, Seed: s.Seed,
		HopDelay: h.net.HopDelay(s.Radio.Delay.D()), RouteDelay: h.net.RouteDelay(), Params: s.Protocol.Params, Env: &env{h: h, n: h.nodes[0]}, Store: &protocol.MemStore{}})
	if warn, ok := protocol.Warned(err); !ok {
		return nil, fmt.Errorf("%s: %w", s.Source(err.Error()), err)
	} else if warn != nil && opt.Log != nil {
		fmt.Fprintf(opt.Log, "%s: warning: %s\n", s.Path, warn.Text)
	}
	h.clock = newRunClock(wallNow(), opt.Start, opt.Dilation)
	return h, nil
}

// open joins the groups, opens the trace files and loads the stores.
func (h *Host) open() error {
	var err error
	if h.data, err = link.Open(link.Config{Group: h.opt.Group, Iface: h.opt.Iface, TTL: h.opt.TTL}); err != nil {
		return fmt.Errorf("node: data group: %w", err)
	}
	if h.ctrl, err = link.Open(link.Config{Group: h.opt.Control, Iface: h.opt.Iface, TTL: h.opt.TTL}); err != nil {
		return fmt.Errorf("node: control group: %w", err)
	}
	h.addr = ifaceAddr(h.data.Interface())
	return h.openTraces()
}

// openTraces opens the trace files and loads the stores.
func (h *Host) openTraces() error {
	for _, n := range h.nodes {
		if err := h.openTrace(n); err != nil {
			return err
		}
		n.store, n.storeLost = openStore(h.opt.Out, h.opt.Run, n.id)
		n.store.log = h.opt.Log
		if n.storeLost != nil && h.opt.Log != nil {
			fmt.Fprintf(h.opt.Log, "node %d: store: %v\n", n.id, n.storeLost)
		}
	}
	h.attachSinks()
	return nil
}

// closeAll releases sockets and files after a failed Start.
func (h *Host) closeAll() {
	for _, c := range []*link.Conn{h.data, h.ctrl} {
		if c != nil {
			c.Close()
		}
	}
	for _, n := range h.nodes {
		if n.out != nil {
			n.out.Close()
		}
	}
}

// now is the time since the run's start, by the run clock (the model's
// time: dilated, it runs Options.Dilation times slower than the host's).
func (h *Host) now() time.Duration {
	if h.virt != nil {
		return h.virt.now
	}
	return h.clock.now()
}

// Stats returns the counters so far; safe to call at any time.
func (h *Host) Stats() Stats { return h.snapshot() }

// snapshot is the counters so far, with the run clock's dilation.
func (h *Host) snapshot() Stats {
	st := h.cnt.snapshot()
	st.Dilation = h.clock.dilation()
	st.LateStart, st.StartLoad, st.Host = h.lateStart, h.startLoad, h.opt.Host
	if !st.Addr.IsValid() {
		st.Addr = h.addr
	}
	return st
}

// Done is closed when the Host has stopped and its traces are closed.
func (h *Host) Done() <-chan struct{} { return h.done }

// Wait blocks until the Host stops and returns its result and the first
// error writing a trace, if any.
func (h *Host) Wait() (*Result, error) {
	<-h.done
	return &h.res, h.err
}

// loop is the one goroutine that touches protocol state.
func (h *Host) loop(ctx context.Context) {
	defer h.finish()
	// A process that cannot go on (protocol.Failure: its program per
	// node failed) stops the host with its error, naming the node.
	defer func() {
		if v := recover(); v != nil {
			h.fail(protocol.Recover(v, nil))
		}
	}()
	if h.stopEarly {
		return
	}
	if h.now() < 0 {
		// What the nodes' processes need from outside starts while the
		// run's start is awaited (protocol/ext: a program per node).
		protocol.Prepare(h.s.Protocol.Name, h.s.Protocol.Params, len(h.nodes))
		// Boot at the run's start; until then frames are read and counted.
		if !h.waitStart(ctx) {
			return
		}
		if err := h.bootAll(); err != nil {
			h.fail(err)
			return
		}
	}
	for {
		now := h.now()
		if now >= h.end {
			return
		}
		for h.sched.len() > 0 && h.sched.peek() <= now {
			h.dispatch(h.sched.pop())
		}
		next := h.end
		if h.sched.len() > 0 && h.sched.peek() < next {
			next = h.sched.peek()
		}
		// A dilated clock's timer waits Dilation times longer.
		h.timer.Reset(h.clock.until(next))
		// What the last batch traced reaches the files before the loop
		// waits: a crash loses at most the batch being processed.
		h.flushTraces()
		select {
		case <-ctx.Done():
			return
		case rfs := <-h.frames:
			// One reader's batch, at most frameBatch frames, is the
			// loop's batch: traced in one write.
			for i := range rfs {
				if h.air != nil {
					// What was due before the frame arrived happens
					// first: a frame on the air ends before one that
					// started after it is judged.
					h.runDue()
				}
				h.receive(&rfs[i])
			}
		case c := <-h.opt.Faults:
			h.control(c)
		case <-h.timer.C:
		}
	}
}

// runDue runs the tasks due by now.
func (h *Host) runDue() {
	now := h.now()
	for h.sched.len() > 0 && h.sched.peek() <= now {
		h.dispatch(h.sched.pop())
	}
}

// waitStart handles frames until the run's start; false if ctx ended it.
func (h *Host) waitStart(ctx context.Context) bool {
	for {
		d := -h.clock.wallSince()
		if d <= 0 {
			return true
		}
		h.timer.Reset(d)
		select {
		case <-ctx.Done():
			return false
		case rfs := <-h.frames:
			for i := range rfs {
				if f := &rfs[i].f; f.Type == wire.TypeLocation && h.admit(f, rfs[i].src) {
					h.location(f)
				}
			}
		case <-h.timer.C:
		}
	}
}

func (h *Host) fail(err error) {
	if h.err == nil {
		h.err = err
	}
}

// finish ends every trace, closes the sockets and waits for the readers.
func (h *Host) finish() {
	h.stopped = true
	h.timer.Stop()
	close(h.quit)
	h.data.Close()
	h.ctrl.Close()
	h.readers.Wait()
	st := h.snapshot()
	h.res = Result{Stats: st, Leaders: map[protocol.NodeID]protocol.NodeID{}}
	for _, n := range h.nodes {
		if n.proc != nil {
			protocol.Close(n.proc)
		}
		if n.alive {
			h.emitLocal(n, &trace.Event{Ev: trace.EvStats, Text: st.String()})
			h.emitLocal(n, &trace.Event{Ev: trace.EvEnd})
		}
		if err := n.out.Close(); err != nil {
			h.fail(fmt.Errorf("node %d: %w", n.id, err))
		}
		h.res.Leaders[n.id] = n.leader
	}
	close(h.done)
}

// read is a reader goroutine: it reads datagrams in batches, decodes
// them, checks the run and passes each batch's frames to the loop at
// once: one system call, one channel send and one wake-up of the loop per
// batch rather than per frame.
func (h *Host) read(c *link.Conn) {
	defer h.readers.Done()
	batch := link.NewBatch(frameBatch, wire.MaxFrame+1)
	for {
		n, err := c.RecvBatch(batch)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			select {
			case <-h.quit:
				return
			default:
			}
			h.log.logf("socket", "%v", err)
			time.Sleep(10 * time.Millisecond)
			continue
		}
		h.cnt.received.Add(uint64(n))
		rfs := make([]rxFrame, n)
		k, size := 0, 0
		for i := range n {
			d := batch.Datagram(i)
			rf := &rfs[k]
			rf.src = batch.Source(i)
			if !h.decode(d, &rf.f, rf.src) {
				continue
			}
			size += len(rf.f.Body)
			k++
		}
		if k == 0 {
			continue
		}
		rfs = rfs[:k]
		// The bodies point into the batch's buffers, which the next read
		// overwrites: copy them out, into one allocation.
		bodies := make([]byte, 0, size)
		for i := range rfs {
			if b := rfs[i].f.Body; len(b) > 0 {
				bodies = append(bodies, b...)
				rfs[i].f.Body = bodies[len(bodies)-len(b) : len(bodies) : len(bodies)]
			}
		}
		select {
		case h.frames <- rfs:
		case <-h.quit:
			return
		}
	}
}

// decode decodes datagram d into f and checks that it is of this run;
// false (counted and logged) if not.
func (h *Host) decode(d []byte, f *wire.Frame, src netip.Addr) bool {
	if err := wire.Decode(d, h.opt.Key, f); err != nil {
		reason := wire.Reason(err)
		h.reject(reason, "%d bytes: %v", len(d), err)
		if reason == "hmac" || reason == "no-hmac" {
			// Of this run: counted for the ground truth by the sender it
			// claims (Stats.RefusedFrom), but as a problem by the address
			// it came from alone: nothing proves the claim.
			if t, run, from, ok := wire.Claimed(d); ok && run == h.runID && t != wire.TypeLocation {
				if i, ok := h.index[from]; ok {
					h.cnt.refused[i].Add(1)
				}
				h.cnt.refusedBy(0, reason, src)
			}
		}
		return false
	}
	if f.Run != h.runID {
		h.refuse(f.From, "run", src)
		h.reject("run", "%s frame from node %d of run %#x, not %#x (%s)", f.Type, f.From, f.Run, h.runID, h.opt.Run)
		return false
	}
	return true
}

// refuse counts a frame of member from, come from address src,
// refused for reason, one of RefusedReasons (Stats.RefusedFrom) or "run"
// (Stats.RefusedBy only); a sender that is no member is not counted.
func (h *Host) refuse(from protocol.NodeID, reason string, src netip.Addr) {
	i, ok := h.index[from]
	if !ok {
		return
	}
	if reason != "run" {
		h.cnt.refused[i].Add(1)
	}
	h.cnt.refusedBy(from, reason, src)
}

// reject counts a dropped datagram and logs it at a limited rate.
func (h *Host) reject(reason, format string, args ...any) {
	c := h.cnt.rejected[reason]
	if c == nil {
		c = h.cnt.rejected["other"]
	}
	c.Add(1)
	switch reason {
	case "own", "range", "loss", "collision", "half-duplex", "cut":
		// The normal working of the radio: counted, not logged.
	default:
		h.log.logf(reason, format, args...)
	}
}
